# harm_loop.rb: ruby's fixed loop for harm.sh (traced with --module=libruby).
# Rounds forever; harm.h's protocol.
def round_work
  s = 0
  h = {}
  20000.times do |i|
    s = (s * 31 + i * i) % 1000000007
    h[(i % 500).to_s] = s
  end
  s + h.values.sum % 1000003 + h.keys.sort.first(50).inspect.size
end

out = ENV["HARM_OUT"] ? File.open(ENV["HARM_OUT"], "w") : $stdout
out.sync = true
want = round_work
out.puts "#{Process.pid} ready reference=#{want}"
r = 1
loop do
  got = round_work
  out.puts(got == want ? "round #{r} OK" : "round #{r} CORRUPT checksum: got #{got} want #{want}")
  r += 1
end
