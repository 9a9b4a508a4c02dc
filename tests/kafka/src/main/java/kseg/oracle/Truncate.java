// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.LogStartOffsetIncrementReason;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * Kafka's own cuts, for kseg-truncate's oracle (truncate-oracle.py). One JVM runs many jobs.
 *
 * Usage: Truncate JOBS_FILE, one job a line, tab-separated:
 *   prepare SRC_PARTITION_DIR OUT_LOG_DIR [key=value ...]
 *     copies the partition into OUT_LOG_DIR, loads and closes it as a broker's shutdown does
 *     (the active segment's indexes trimmed), lists its batches in OUT_LOG_DIR/batches.txt
 *     ("segmentBase baseOffset lastOffset maxTimestamp", then "end LEO"), and writes the root
 *     checkpoints it leaves: recovery point = log end, high watermark and log start offset from
 *     SRC's log dir when it has them (else the log end, and none), and .kafka_cleanshutdown.
 *   MODE PARTITION_DIR ARG NOW_MS RESULT_FILE [key=value ...]   (topic config as key=value)
 *     loads PARTITION_DIR cleanly (its log dir's checkpoints), does the cut, flushes and closes
 *     the log as LogManager's shutdown does, and rewrites the log dir's checkpoints from the
 *     log's state as LogManager writes them. MODE is one of:
 *       to-offset N   UnifiedLog.truncateTo(L'), L' = the end a cut at N leaves (the last
 *                     batch of the segment holding N whose last offset is below N, or that
 *                     segment's base; N below the first segment: truncateTo(N) itself)
 *       to-time T     the same at the offset fetchOffsetByTimestamp(T) returns
 *       log-start N   maybeIncrementLogStartOffset(N, ClientRecordDeletion), deleteOldSegments()
 *       retention -   deleteOldSegments() under the job's retention.ms / retention.bytes
 *       full N        truncateFullyAndStartAt(N)
 *     RESULT_FILE gets "key value" lines: end, log_start_offset, high_watermark,
 *     recovery_point, and "refused <exception>" when Kafka throws.
 */
public final class Truncate {
    public static void main(String[] args) throws Exception {
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            if (line.isBlank()) continue;
            List<String> f = new ArrayList<>(Arrays.asList(line.split("\t")));
            if (f.get(0).equals("prepare")) prepare(new File(f.get(1)), new File(f.get(2)), config(f.subList(3, f.size())));
            else try { run(f.get(0), new File(f.get(1)), f.get(2), Long.parseLong(f.get(3)), Path.of(f.get(4)),
                    config(f.subList(5, f.size()))); } catch (Exception e) { throw new IllegalStateException(line, e); }
        }
    }

    static Map<String, Object> config(List<String> kvs) {
        Map<String, Object> c = new LinkedHashMap<>();
        for (String kv : kvs) { String[] p = kv.split("=", 2); c.put(p[0], p[1]); }
        return c;
    }

    static void prepare(File src, File outLogDir, Map<String, Object> config) throws Exception {
        TopicPartition tp = UnifiedLog.parseTopicPartitionName(src);
        Path copy = outLogDir.toPath().resolve(src.getName());
        Files.createDirectories(copy);
        Tree.reset(src.toPath(), copy);
        long logStart = LoadCheck.checkpoint(src, "log-start-offset-checkpoint", tp, 0L);
        Long hw = LoadCheck.checkpoint(src, "replication-offset-checkpoint", tp, null);
        trimActiveIndexes(copy.toFile());
        // Loaded and shut down as a broker does: the active segment's indexes trimmed.
        UnifiedLog log = Kafka.open(copy.toFile(), config, new FixedTime(FixedTime.START_MS), logStart, 0L, true, null);
        long leo = log.logEndOffset();
        try (PrintStream ps = new PrintStream(Files.newOutputStream(outLogDir.toPath().resolve("batches.txt")), false,
                StandardCharsets.UTF_8)) {
            for (LogSegment seg : log.logSegments())
                for (RecordBatch b : seg.log().batches())
                    ps.println(seg.baseOffset() + " " + b.baseOffset() + " " + b.lastOffset() + " " + b.maxTimestamp());
            ps.println("end " + leo);
        }
        shutDown(log);
        log.close();
        write(outLogDir, "recovery-point-offset-checkpoint", tp, leo);
        write(outLogDir, "replication-offset-checkpoint", tp, hw == null ? leo : hw);
        if (logStart > 0) write(outLogDir, "log-start-offset-checkpoint", tp, logStart);
        Files.writeString(outLogDir.toPath().resolve(".kafka_cleanshutdown"), "{\"version\":0,\"brokerEpoch\":7}");
    }

    static void run(String mode, File dir, String arg, long nowMs, Path result, Map<String, Object> config)
            throws Exception {
        TopicPartition tp = UnifiedLog.parseTopicPartitionName(dir);
        long logStart = LoadCheck.checkpoint(dir, "log-start-offset-checkpoint", tp, 0L);
        long recoveryPoint = LoadCheck.checkpoint(dir, "recovery-point-offset-checkpoint", tp, 0L);
        Long hw = LoadCheck.checkpoint(dir, "replication-offset-checkpoint", tp, null);
        UnifiedLog log = Kafka.open(dir, config, new FixedTime(nowMs), logStart, recoveryPoint, true, null);
        log.updateHighWatermark(hw == null ? log.logEndOffset() : hw);
        Map<String, String> out = new LinkedHashMap<>();
        try {
            switch (mode) {
                case "to-offset" -> out.put("end", Long.toString(cut(log, Long.parseLong(arg))));
                case "to-time" -> {
                    var found = log.fetchOffsetByTimestamp(Long.parseLong(arg), Optional.empty()).timestampAndOffsetOpt();
                    out.put("end", found.isPresent() ? Long.toString(cut(log, found.get().offset)) : "none");
                }
                case "log-start" -> {
                    log.maybeIncrementLogStartOffset(Long.parseLong(arg), LogStartOffsetIncrementReason.ClientRecordDeletion);
                    out.put("deleted_segments", Integer.toString(log.deleteOldSegments()));
                }
                case "retention" -> out.put("deleted_segments", Integer.toString(log.deleteOldSegments()));
                case "full" -> log.truncateFullyAndStartAt(Long.parseLong(arg), Optional.empty());
                default -> throw new IllegalArgumentException("unknown mode " + mode);
            }
        } catch (Exception e) {
            out.put("refused", e.toString().replace('\n', ' '));
        }
        log.flush(true);
        out.put("log_start_offset", Long.toString(log.logStartOffset()));
        out.put("log_end_offset", Long.toString(log.logEndOffset()));
        out.put("high_watermark", Long.toString(log.highWatermark()));
        out.put("recovery_point", Long.toString(log.recoveryPoint()));
        long firstBase = log.logSegments().iterator().next().baseOffset();
        long lso = log.logStartOffset(), rp = log.recoveryPoint(), hwm = log.highWatermark();
        // A broker's shutdown leaves the active segment's indexes trimmed, with the time index's
        // final entry (corpus case live-broker); UnifiedLog.close() alone leaves them preallocated,
        // with whatever bytes a truncation left past the entries. The roll's own step does it.
        shutDown(log);
        log.close();
        File logDir = dir.getParentFile();
        write(logDir, "recovery-point-offset-checkpoint", tp, rp);
        write(logDir, "replication-offset-checkpoint", tp, hwm);
        // LogManager lists a log start offset only above the first segment's base.
        Map<TopicPartition, Long> starts = new HashMap<>();
        if (lso > firstBase) starts.put(tp, lso);
        new OffsetCheckpointFile(new File(logDir, "log-start-offset-checkpoint"), new LogDirFailureChannel(1)).write(starts);
        try (PrintStream ps = new PrintStream(Files.newOutputStream(result), false, StandardCharsets.UTF_8)) {
            for (var e : out.entrySet()) ps.println(e.getKey() + " " + e.getValue());
        }
    }

    /** Truncates at the batch boundary a cut at n leaves, as kseg-truncate reports it. */
    static long cut(UnifiedLog log, long n) throws Exception {
        LogSegment holder = null;
        for (LogSegment s : log.logSegments()) if (s.baseOffset() <= n) holder = s;
        if (holder == null || n >= log.logEndOffset()) {
            log.truncateTo(n);
            return Math.min(n, log.logEndOffset());
        }
        // A running broker knows the segment's largest timestamp (appends, retention, ListOffsets
        // read it), and truncateTo then re-reads it for what is left: as kseg-truncate assumes.
        holder.largestTimestamp();
        long end = holder.baseOffset();
        for (RecordBatch b : holder.log().batches()) if (b.lastOffset() < n) end = b.nextOffset();
        log.truncateTo(end);
        return end;
    }

    /** The in-process corpus cases were closed by UnifiedLog.close() alone, which leaves the active
     *  segment's indexes preallocated; Kafka counts every slot of a file it opens, zeros included,
     *  so they are trimmed here to their entries (slots up to the first whose offset does not grow),
     *  as a broker's shutdown leaves them. */
    static void trimActiveIndexes(File dir) throws Exception {
        File[] logs = dir.listFiles((d, n) -> n.endsWith(".log"));
        if (logs == null || logs.length == 0) return;
        java.util.Arrays.sort(logs);
        String base = logs[logs.length - 1].getName().replace(".log", "");
        for (String[] kind : new String[][] {{".index", "8", "0"}, {".timeindex", "12", "8"}}) {
            Path f = dir.toPath().resolve(base + kind[0]);
            if (!Files.exists(f)) continue;
            byte[] b = Files.readAllBytes(f);
            int size = Integer.parseInt(kind[1]), at = Integer.parseInt(kind[2]);
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(b);
            int n = 0;
            while ((n + 1) * size <= b.length && (n == 0 ? !allZero(b, 0, size) : buf.getInt(n * size + at) > buf.getInt((n - 1) * size + at))) n++;
            try (var ch = java.nio.channels.FileChannel.open(f, java.nio.file.StandardOpenOption.WRITE)) {
                ch.truncate((long) n * size);
            }
        }
    }

    static boolean allZero(byte[] b, int from, int len) {
        for (int i = from; i < from + len; i++) if (b[i] != 0) return false;
        return true;
    }

    /** What a broker's shutdown leaves of the active segment: its time index's final entry,
     *  both indexes trimmed (onBecomeInactiveSegment, after the room to append it). */
    static void shutDown(UnifiedLog log) throws Exception {
        LogSegment active = log.activeSegment();
        active.offsetIndex().resize(active.offsetIndex().maxIndexSize());
        active.timeIndex().resize(active.timeIndex().maxIndexSize());
        active.onBecomeInactiveSegment();
    }

    static void write(File logDir, String name, TopicPartition tp, long offset) throws Exception {
        new OffsetCheckpointFile(new File(logDir, name), new LogDirFailureChannel(1)).write(Map.of(tp, offset));
    }
}
