// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.util.Map;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/** The benchmarks' Kafka side of an index rebuild: opens a partition directory whose
 *  .index/.timeindex were deleted, as a broker does at start-up after a clean shutdown, so
 *  LogLoader rebuilds them with LogSegment.recover; prints the milliseconds that took,
 *  measured in-process (no JVM start). Broker defaults otherwise (index.interval.bytes 4096).
 *  Usage: TimeRebuild PARTITION_DIR */
public final class TimeRebuild {
    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        Map<String, Object> config = Map.of("segment.bytes", Integer.MAX_VALUE, "segment.index.bytes", 64 * 1024 * 1024);
        long start = System.nanoTime();
        try (UnifiedLog log = Kafka.open(dir, config, new FixedTime(1_700_000_000_000L), 0, 0, true, null)) {
            long ms = (System.nanoTime() - start) / 1_000_000;
            System.out.println("rebuilt in " + ms + " ms; log end offset " + log.logEndOffset());
        }
    }
}
