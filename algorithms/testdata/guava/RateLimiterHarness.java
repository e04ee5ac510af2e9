// RateLimiterHarness drives Guava's RateLimiter on a clock the caller sets,
// for ratelab's conformance test (algorithms/guavareal_test.go). It is
// declared in Guava's own package to reach the package-private seam that
// Guava's tests use: RateLimiter.create(permitsPerSecond, SleepingStopwatch)
// for a SmoothBursty and RateLimiter.create(permitsPerSecond, warmupPeriod,
// unit, coldFactor, SleepingStopwatch) for a SmoothWarmingUp. Each limiter
// has a stopwatch of its own whose readMicros is the value the caller last
// gave and whose sleepMicrosUninterruptibly records the wait instead of
// sleeping (it does not move the clock: the caller's next request comes at
// a time of its own).
//
// Input, one command a line, fields separated by spaces:
//
//   B id pps                      a SmoothBursty limiter id, made at micros 0
//   W id pps warmupNanos          a SmoothWarmingUp (coldFactor 3.0, as the
//                                 public create(pps, warmup, unit) uses)
//   A id micros permits           acquire(permits) at micros on id's stopwatch
//   T id micros permits           tryAcquire(permits)
//   T id micros permits nanos     tryAcquire(permits, nanos, NANOSECONDS)
//
// pps is a Java double literal (Double.parseDouble). Output, a line for
// each A and T: the microseconds the call slept, or "-" for a tryAcquire
// that returned false; then a space, storedPermits as the hex of its raw
// bits, a space and nextFreeTicketMicros, as the limiter keeps them after
// the call. A command that fails answers "! " and the exception.
package com.google.common.util.concurrent;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

public final class RateLimiterHarness {
  /** A stopwatch the harness sets; a sleep is recorded, not slept. */
  static final class FakeStopwatch extends RateLimiter.SleepingStopwatch {
    long micros;
    long slept = -1;

    @Override
    protected long readMicros() {
      return micros;
    }

    @Override
    protected void sleepMicrosUninterruptibly(long us) {
      slept = us;
    }
  }

  static final class Lane {
    final FakeStopwatch clock;
    final SmoothRateLimiter limiter;

    Lane(FakeStopwatch clock, SmoothRateLimiter limiter) {
      this.clock = clock;
      this.limiter = limiter;
    }
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    BufferedWriter out =
        new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
    Map<Long, Lane> lanes = new HashMap<>();
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split(" ");
      try {
        long id = Long.parseLong(f[1]);
        switch (f[0]) {
          case "B":
          case "W":
            {
              FakeStopwatch clock = new FakeStopwatch();
              double pps = Double.parseDouble(f[2]);
              RateLimiter r =
                  f[0].equals("B")
                      ? RateLimiter.create(pps, clock)
                      : RateLimiter.create(
                          pps, Long.parseLong(f[3]), TimeUnit.NANOSECONDS, 3.0, clock);
              lanes.put(id, new Lane(clock, (SmoothRateLimiter) r));
              continue; // no answer
            }
          case "A":
          case "T":
            {
              Lane l = lanes.get(id);
              l.clock.micros = Long.parseLong(f[2]);
              l.clock.slept = -1;
              int permits = Integer.parseInt(f[3]);
              boolean ok = true;
              if (f[0].equals("A")) {
                l.limiter.acquire(permits);
              } else if (f.length > 4) {
                ok = l.limiter.tryAcquire(permits, Long.parseLong(f[4]), TimeUnit.NANOSECONDS);
              } else {
                ok = l.limiter.tryAcquire(permits);
              }
              out.write(ok ? Long.toString(l.clock.slept) : "-");
              out.write(' ');
              out.write(Long.toHexString(Double.doubleToRawLongBits(l.limiter.storedPermits)));
              out.write(' ');
              out.write(Long.toString(l.limiter.queryEarliestAvailable(l.clock.micros)));
              out.write('\n');
              break;
            }
          default:
            throw new IllegalArgumentException("unknown command " + f[0]);
        }
      } catch (RuntimeException e) {
        out.write("! " + line + ": " + e + "\n");
      }
    }
    out.flush();
  }
}
