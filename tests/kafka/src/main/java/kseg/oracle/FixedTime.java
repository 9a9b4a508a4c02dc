// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import org.apache.kafka.common.utils.Time;

/** A clock that moves only when told to, so LogAppendTime, snapshot timestamps and
 *  roll decisions are the same on every run. sleep() advances it instead of blocking. */
final class FixedTime implements Time {
    /** 2023-11-14T22:13:20Z: an arbitrary, recognisable start. */
    static final long START_MS = 1_700_000_000_000L;
    private long ms;

    FixedTime(long startMs) { this.ms = startMs; }

    void advance(long deltaMs) { ms += deltaMs; }

    @Override public synchronized long milliseconds() { return ms; }
    @Override public synchronized long nanoseconds() { return ms * 1_000_000L; }
    @Override public synchronized void sleep(long deltaMs) { ms += deltaMs; }
}
