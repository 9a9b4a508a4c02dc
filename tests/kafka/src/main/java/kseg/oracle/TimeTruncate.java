// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.util.Map;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.LogStartOffsetIncrementReason;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/** The benchmarks' Kafka side of a cut (tests/bench/truncate.sh): loads a partition directory
 *  as a broker does after a clean shutdown, makes the cut with Kafka's own code and closes the
 *  log, timed in-process (no JVM start). Prints "load_ms op_ms close_ms end start".
 *  Usage: TimeTruncate PARTITION_DIR to-offset|log-start N
 *    to-offset: truncateTo at the batch boundary at or below N (as kseg-truncate cuts; the
 *               boundary is found before the clock starts);
 *    log-start: maybeIncrementLogStartOffset(N, ClientRecordDeletion) + deleteOldSegments(). */
public final class TimeTruncate {
    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        long n = Long.parseLong(args[2]);
        Map<String, Object> config = Map.of("segment.bytes", Integer.MAX_VALUE, "segment.index.bytes", 64 * 1024 * 1024,
                "retention.ms", -1L);
        long t0 = System.nanoTime();
        UnifiedLog log = Kafka.open(dir, config, new FixedTime(1_700_000_000_000L), 0, 0, true, null);
        log.updateHighWatermark(log.logEndOffset());
        // The batch boundary is found before the clock starts: Kafka's own callers know it.
        long cut = n;
        if (args[1].equals("to-offset")) {
            LogSegment holder = null;
            for (LogSegment s : log.logSegments()) if (s.baseOffset() <= n) holder = s;
            cut = holder.baseOffset();
            for (RecordBatch b : holder.log().batches()) {
                if (b.lastOffset() >= n) break;
                cut = b.nextOffset();
            }
        }
        long t1 = System.nanoTime();
        if (args[1].equals("to-offset")) {
            log.truncateTo(cut);
        } else {
            log.maybeIncrementLogStartOffset(n, LogStartOffsetIncrementReason.ClientRecordDeletion);
            log.deleteOldSegments();
        }
        long t2 = System.nanoTime();
        long end = log.logEndOffset(), start = log.logStartOffset();
        Truncate.shutDown(log);  // as a broker's shutdown: the active segment's indexes trimmed
        log.close();
        long t3 = System.nanoTime();
        System.out.printf("%d %d %d %d %d%n", (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000, end, start);
    }
}
