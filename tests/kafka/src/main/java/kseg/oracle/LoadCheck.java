// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.AbortedTxn;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.FetchDataInfo;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.ProducerStateEntry;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * Opens a partition directory the way a broker does at start-up (UnifiedLog.create, which
 * runs LogLoader) on a private copy, reads every record through UnifiedLog.read, and prints a
 * canonical digest. Keys, values and header values are standard base64 ("-" for null).
 *
 * Usage: LoadCheck PARTITION_DIR [--unclean] [--indexes] [--config key=value]...
 *   clean (default): hadCleanShutdown=true, so no recovery runs;
 *   --unclean: hadCleanShutdown=false, so segments from the recovery point on are recovered;
 *   --indexes: also each segment's offset index as the load left it (entries Kafka counts,
 *   and the first one), to show whether Kafka kept or rebuilt an index.
 * The recovery point, log start offset and high watermark come from the checkpoint files in
 * the parent directory when present (as LogManager reads them), else 0 / 0 / none.
 */
public final class LoadCheck {
    public static void main(String[] args) throws Exception {
        File src = new File(args[0]).getAbsoluteFile();
        boolean unclean = false, indexes = false;
        Map<String, Object> config = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--unclean")) unclean = true;
            else if (args[i].equals("--indexes")) indexes = true;
            else if (args[i].equals("--config")) { String[] kv = args[++i].split("=", 2); config.put(kv[0], kv[1]); }
            else throw new IllegalArgumentException("unknown argument " + args[i]);
        }
        TopicPartition tp = UnifiedLog.parseTopicPartitionName(src);
        long recoveryPoint = checkpoint(src, "recovery-point-offset-checkpoint", tp, 0L);
        long logStart = checkpoint(src, "log-start-offset-checkpoint", tp, 0L);
        Long hw = checkpoint(src, "replication-offset-checkpoint", tp, null);

        Path tmp = Files.createTempDirectory("kseg-loadcheck");
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try {
            Path copy = tmp.resolve(src.getName());
            Files.createDirectories(copy);
            Tree.reset(src.toPath(), copy);
            // Kafka's own logging is off (slf4j-nop); the digest is all that goes to stdout.
            UnifiedLog log = Kafka.open(copy.toFile(), config, new FixedTime(FixedTime.START_MS), logStart, recoveryPoint,
                    !unclean, null);
            out.println("# kseg loadcheck: Kafka " + org.apache.kafka.common.utils.internals.AppInfoParser.getVersion()
                    + ", " + (unclean ? "unclean" : "clean") + " load of " + src.getName()
                    + " (recovery point " + recoveryPoint + ", log start offset " + logStart + ")");
            printRecords(log, out);
            out.println("log_start_offset " + log.logStartOffset());
            out.println("log_end_offset " + log.logEndOffset());
            out.println("high_watermark " + (hw == null ? "none" : hw.toString()) + " (replication-offset-checkpoint)");
            for (Map.Entry<Long, ProducerStateEntry> e : new TreeMap<>(log.producerStateManager().activeProducers()).entrySet()) {
                ProducerStateEntry p = e.getValue();
                int lastSeq = -1;
                for (var b : p.batchMetadata()) lastSeq = b.lastSeq();   // oldest first: keep the newest
                out.println("producer pid=" + p.producerId() + " epoch=" + p.producerEpoch() + " last_seq=" + lastSeq
                        + " last_offset=" + p.lastDataOffset() + " coordinator_epoch=" + p.coordinatorEpoch()
                        + " current_txn_first_offset=" + (p.currentTxnFirstOffset().isPresent() ? p.currentTxnFirstOffset().getAsLong() : "none"));
            }
            for (LogSegment s : log.logSegments())
                for (AbortedTxn a : s.txnIndex().allAbortedTxns())
                    out.println("aborted_txn pid=" + a.producerId() + " first_offset=" + a.firstOffset()
                            + " last_offset=" + a.lastOffset() + " last_stable_offset=" + a.lastStableOffset());
            for (EpochEntry e : log.leaderEpochCache().epochEntries())
                out.println("leader_epoch epoch=" + e.epoch() + " start_offset=" + e.startOffset());
            if (indexes)
                for (LogSegment s : log.logSegments()) {
                    var idx = s.offsetIndex();
                    out.println("offset_index base=" + s.baseOffset() + " entries=" + idx.entries()
                            + (idx.entries() > 0 ? " first=" + idx.entry(0).offset() + "@" + idx.entry(0).position() : ""));
                }
            out.flush();
            log.close();
        } finally {
            Generate.deleteTree(tmp.toFile());
        }
    }

    /** Every record from the log start offset to the log end offset, as a fetch returns them. */
    static void printRecords(UnifiedLog log, PrintStream out) throws Exception {
        long next = log.logStartOffset();
        while (next < log.logEndOffset()) {
            FetchDataInfo fetch = log.read(next, 1 << 20, FetchIsolation.LOG_END, true);
            long before = next;
            for (RecordBatch batch : fetch.records.batches()) {
                for (Record r : batch) {
                    if (r.offset() < next) continue;   // a batch may start before the fetch offset
                    out.println(line(batch, r));
                }
                next = Math.max(next, batch.nextOffset());
            }
            if (next == before) throw new IllegalStateException("no progress reading at offset " + next);
        }
    }

    static String line(RecordBatch batch, Record r) {
        StringBuilder sb = new StringBuilder();
        sb.append("offset=").append(r.offset())
          .append(' ').append(batch.timestampType()).append('=').append(r.timestamp())
          .append(" magic=").append(batch.magic());
        if (batch.magic() >= RecordBatch.MAGIC_VALUE_V2) {
            sb.append(" pid=").append(batch.producerId()).append(" epoch=").append(batch.producerEpoch())
              .append(" seq=").append(r.sequence()).append(" txn=").append(batch.isTransactional());
        }
        if (batch.isControlBatch()) sb.append(" control=").append(ControlRecordType.parse(r.key()));
        sb.append(" key=").append(b64(r.key())).append(" value=").append(b64(r.value())).append(" headers=[");
        List<String> hs = new ArrayList<>();
        for (Header h : r.headers()) hs.add(h.key() + ":" + (h.value() == null ? "-" : Base64.getEncoder().encodeToString(h.value())));
        return sb.append(String.join(",", hs)).append(']').toString();
    }

    static String b64(ByteBuffer b) {
        if (b == null) return "-";
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return Base64.getEncoder().encodeToString(a);
    }

    static <T extends Long> Long checkpoint(File partitionDir, String name, TopicPartition tp, Long dflt) throws Exception {
        File f = new File(partitionDir.getParentFile(), name);
        if (!f.exists()) return dflt;
        Long v = new OffsetCheckpointFile(f, new LogDirFailureChannel(1)).read().get(tp);
        return v == null ? dflt : v;
    }
}
