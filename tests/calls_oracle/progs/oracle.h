/* Shared by the calls_oracle corpus: every program is short, deterministic
 * and bounded (fixed call counts), so uftrace and asmspy see the same calls. */
#ifndef ORACLE_H
#define ORACLE_H
#define NOINLINE __attribute__((noinline))
/* a value the optimiser cannot see through */
extern volatile int oracle_sink;
#define SINK(x) (oracle_sink += (int)(x))
#define ORACLE_SINK_DEF volatile int oracle_sink
#endif
