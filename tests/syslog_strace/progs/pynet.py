# pynet: a real program (python3 -S): a loopback TCP client/server and a UDP
# round trip through the socket module; compared by compare.py like the C ones.
import socket
l = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(('127.0.0.1', 0)); l.listen(1)
c = socket.create_connection(l.getsockname())
a, _ = l.accept()
c.sendall(b'ping'); a.recv(16)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('127.0.0.1', 0))
u.sendto(b'dgram', u.getsockname()); u.recvfrom(16)
for s in (a, c, l, u): s.close()
