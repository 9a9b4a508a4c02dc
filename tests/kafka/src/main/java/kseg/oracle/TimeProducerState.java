// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/** The benchmarks' Kafka side of a producer-state rebuild (tests/bench/producers.sh): opens a
 *  partition directory whose producer snapshots were deleted, as a broker does after an unclean
 *  shutdown with its recovery point at the active segment's base, so that LogLoader recovers the
 *  active segment and rebuilds producer state by replaying the log from its start; timed
 *  in-process (no JVM start). Prints "load_ms log_end_offset" and writes the producers it holds
 *  (RebuildProducerState's producers.txt format) to PRODUCERS_OUT.
 *  Usage: TimeProducerState PARTITION_DIR RECOVERY_POINT PRODUCERS_OUT */
public final class TimeProducerState {
    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        Map<String, Object> config = Map.of("segment.bytes", Integer.MAX_VALUE, "segment.index.bytes", 64 * 1024 * 1024);
        long t0 = System.nanoTime();
        UnifiedLog log = Kafka.open(dir, config, new FixedTime(FixedTime.START_MS), 0, Long.parseLong(args[1]), false, null);
        long t1 = System.nanoTime();
        try (PrintStream ps = new PrintStream(Files.newOutputStream(Path.of(args[2])))) {
            ps.print(RebuildProducerState.producers(log));
        }
        System.out.printf("%d %d%n", (t1 - t0) / 1_000_000, log.logEndOffset());
        log.close();
    }
}
