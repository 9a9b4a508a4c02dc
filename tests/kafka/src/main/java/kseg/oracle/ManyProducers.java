// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * A partition of many producers, for the producer-state oracle (not a corpus case): 300
 * idempotent producers and 40 transactional ones with ids from a few allocator blocks and from
 * the whole positive long range (so that snapshots hold hundreds of entries in Kafka's HashMap
 * order, through its resizes, and Long.hashCode's high half matters), their transactions
 * interleaved so that aborts carry another producer's open transaction as their LSO.
 *
 * Usage: ManyProducers OUT_DIR SEED   (writes OUT_DIR/many-producers/ as Generate writes a case)
 */
public final class ManyProducers {
    public static void main(String[] args) throws Exception {
        File dir = new File(args[0], "many-producers");
        Generate.deleteTree(dir);
        Files.createDirectories(dir.toPath());
        Case c = new Case("many-producers", dir, Long.parseLong(args[1]));
        Map<String, Object> cfg = MoreCases.smallSegments();
        UnifiedLog log = Kafka.open(c.partitionDir("crowd", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("crowd"));
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 340; i++)
            ids.add(i % 3 == 0 ? (c.rnd.nextLong() & Long.MAX_VALUE) : i % 3 == 1 ? 1000L + i : 7000L + 5 * i);
        int[] seq = new int[ids.size()];
        boolean[] open = new boolean[ids.size()];
        for (int b = 0; b < 3000; b++) {
            int p = c.rnd.nextInt(ids.size());
            boolean txn = p >= 300;
            if (txn && open[p] && c.rnd.nextInt(3) == 0) {
                boolean abort = c.rnd.nextBoolean();
                EndTransactionMarker m = new EndTransactionMarker(abort ? ControlRecordType.ABORT : ControlRecordType.COMMIT, 3);
                Kafka.appendMarker(log, MemoryRecords.withEndTransactionMarker(0L, c.time.milliseconds(), 0, ids.get(p), (short) 0, m), 0);
                open[p] = false;
            } else {
                int count = 1 + c.rnd.nextInt(3);
                log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                        ids.get(p), (short) 0, seq[p], txn, 0, MoreCases.records(c, count, false)), 0);
                seq[p] += count;
                open[p] |= txn;
            }
            log.updateHighWatermark(log.logEndOffset());
            c.time.advance(1 + c.rnd.nextInt(20));
        }
        c.step("3000 appends from 340 producers (40 transactional, markers as the coordinator writes them)");
        log.close();
        c.step("closed the log (UnifiedLog.close, as at a clean shutdown)");
        c.writeInfo();
    }
}
