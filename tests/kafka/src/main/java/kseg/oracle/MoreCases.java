// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.common.TransactionVersion;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.Cleaner;
import org.apache.kafka.storage.internals.log.LogStartOffsetIncrementReason;
import org.apache.kafka.storage.internals.log.LogToClean;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.utils.Throttler;

import static kseg.oracle.Generate.SMALL_INDEX_BYTES;
import static kseg.oracle.Generate.topicConfig;

/** Cases about producer state, transactions, compaction, timestamps and log shapes. */
final class MoreCases {
    private MoreCases() { }

    static Map<String, Object> smallSegments(Object... extra) {
        Map<String, Object> m = topicConfig("internal.segment.bytes", 8192, "index.interval.bytes", 256,
                "segment.index.bytes", SMALL_INDEX_BYTES);
        for (int i = 0; i < extra.length; i += 2) m.put((String) extra[i], extra[i + 1]);
        return m;
    }

    static List<SimpleRecord> records(Case c, int count, boolean headers) {
        List<SimpleRecord> recs = new ArrayList<>();
        for (int i = 0; i < count; i++) recs.add(c.record(c.time.milliseconds(), i, headers));
        return recs;
    }

    /** v0, v1 and v2 batches in one segment, as a follower of a cluster part-way through a
     *  message-format upgrade would hold them. */
    static void mixedMagic(Case c) throws Exception {
        Map<String, Object> cfg = topicConfig("segment.index.bytes", SMALL_INDEX_BYTES, "index.interval.bytes", 256);
        UnifiedLog log = Kafka.open(c.partitionDir("upgrade", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("upgrade"));
        byte[] magics = {0, 0, 1, 0, 1, 1, 2, 1, 2, 2};
        String[] codecs = {"none", "gzip", "none", "snappy", "lz4", "gzip", "none", "none", "zstd", "lz4"};
        for (int i = 0; i < magics.length; i++) {
            MemoryRecords b = Kafka.batch(magics[i], Compression.of(codecs[i]).build(), TimestampType.CREATE_TIME,
                    log.logEndOffset(), RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE,
                    false, magics[i] >= 2 ? 0 : RecordBatch.NO_PARTITION_LEADER_EPOCH, records(c, 1 + c.rnd.nextInt(4), magics[i] >= 2));
            log.appendAsFollower(b, 0);
            c.time.advance(10);
        }
        c.step("appendAsFollower of 10 batches with magic 0,0,1,0,1,1,2,1,2,2 and codecs " + String.join(",", codecs));
        closeClean(c, log);
    }

    /** Three idempotent producers (ids 1000..1002) over several segments: the rolled segments
     *  get producer .snapshot files with entries. */
    static void idempotent(Case c) throws Exception {
        Map<String, Object> cfg = smallSegments();
        UnifiedLog log = Kafka.open(c.partitionDir("payments", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("payments"));
        int[] seq = new int[3];
        for (int b = 0; b < 50; b++) {
            int p = c.rnd.nextInt(3);
            int count = 1 + c.rnd.nextInt(6);
            short epoch = (short) (p == 2 && b > 25 ? 1 : 0);   // producer 1002 bumps its epoch mid-way
            if (p == 2 && b > 25 && epoch == 1 && seq[2] > 0 && c.info.get("epoch_bump") == null) {
                seq[2] = 0;
                c.info.put("epoch_bump", "producer 1002 went to epoch 1 at batch " + b + " (sequence restarts at 0)");
            }
            log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.of(b % 2 == 0 ? "none" : "lz4").build(),
                    TimestampType.CREATE_TIME, 0, 1000 + p, epoch, seq[p], false, 0, records(c, count, true)), 0);
            seq[p] += count;
            c.time.advance(1 + c.rnd.nextInt(30));
        }
        c.info.put("producer", Generate.topicConfig("enable.idempotence", true, "producer_ids", List.of(1000, 1001, 1002),
                "compression", "alternating none/lz4"));
        c.step("appended 50 idempotent batches from producers 1000-1002 as leader (epoch 0)");
        closeClean(c, log);
    }

    /** Committed and aborted transactions, interleaved, with COMMIT/ABORT markers written as
     *  the transaction coordinator does; aborts land in the .txnindex files. */
    static void transactions(Case c) throws Exception {
        UnifiedLog log = transactionRounds(c, 14, 2000, "gzip", 5, TransactionVersion.TV_0);
        c.info.put("producer", Generate.topicConfig("transactional", true, "producer_ids", List.of(2000, 2001), "coordinator_epoch", 5,
                "markers", "transaction t of producer p aborted when (t+p) % 3 == 0, else committed"));
        c.step("14 rounds: 2 transactional batches per producer + 2 plain batches, then one marker per producer");
        closeClean(c, log);
    }

    /** Transactions as a 4.x coordinator ends them under transaction.version 2: every marker
     *  carries the producer's epoch + 1, the producer goes on with that epoch from sequence 0,
     *  and a producer whose last append was a marker has a snapshot entry with no batch
     *  metadata (the snapshot taken at close ends on markers). */
    static void transactionsTv2(Case c) throws Exception {
        UnifiedLog log = transactionRounds(c, 10, 4000, "lz4", 7, TransactionVersion.TV_2);
        c.info.put("producer", Generate.topicConfig("transactional", true, "producer_ids", List.of(4000, 4001), "coordinator_epoch", 7,
                "transaction_version", 2, "markers", "transaction t of producer p aborted when (t+p) % 3 == 0, else committed; "
                        + "each marker has the producer's epoch + 1, the next transaction that epoch from sequence 0"));
        c.step("10 rounds: 2 transactional batches per producer + 2 plain batches, then one TV_2 marker per producer");
        closeClean(c, log);
    }

    /** `rounds` rounds of two overlapping transactions (producers firstPid and firstPid + 1,
     *  the second compressed with `codec`), plain batches in between, then one marker per
     *  producer (aborted when (t+p) % 3 == 0). Under TV_2 each marker bumps the epoch and the
     *  next transaction starts at sequence 0. */
    static UnifiedLog transactionRounds(Case c, int rounds, long firstPid, String codec, int coordinatorEpoch,
                                        TransactionVersion tv) throws Exception {
        Map<String, Object> cfg = smallSegments();
        UnifiedLog log = Kafka.open(c.partitionDir("ledger", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("ledger"));
        int[] seq = new int[2];
        short[] epoch = {0, 0};
        for (int t = 0; t < rounds; t++) {
            for (int p = 0; p < 2; p++) {
                for (int b = 0; b < 2; b++) {
                    int count = 1 + c.rnd.nextInt(5);
                    log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.of(p == 0 ? "none" : codec).build(),
                            TimestampType.CREATE_TIME, 0, firstPid + p, epoch[p], seq[p], true, 0, records(c, count, true)), 0);
                    seq[p] += count;
                    c.time.advance(3);
                }
                // Non-transactional traffic in between.
                log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                        records(c, 2, false)), 0);
            }
            for (int p = 0; p < 2; p++) {
                boolean abort = (t + p) % 3 == 0;
                EndTransactionMarker m = new EndTransactionMarker(abort ? ControlRecordType.ABORT : ControlRecordType.COMMIT,
                        coordinatorEpoch);
                if (tv == TransactionVersion.TV_2) {
                    epoch[p]++;
                    seq[p] = 0;
                }
                Kafka.appendMarker(log, MemoryRecords.withEndTransactionMarker(0L, c.time.milliseconds(), 0, firstPid + p, epoch[p], m),
                        0, tv);
                log.updateHighWatermark(log.logEndOffset());
                c.time.advance(5);
            }
        }
        return log;
    }

    /** A compacted topic after Kafka's own Cleaner ran twice: offset gaps, tombstones kept with
     *  a delete horizon, and empty batches kept for an idempotent producer's sequence. */
    static void compacted(Case c) throws Exception {
        Map<String, Object> cfg = smallSegments("cleanup.policy", "compact", "delete.retention.ms", 3_600_000,
                "min.cleanable.dirty.ratio", 0.01, "segment.bytes", 1048576);
        UnifiedLog log = Kafka.open(c.partitionDir("accounts", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("accounts"));
        int seq = 0;
        for (int round = 0; round < 3; round++) {
            for (int b = 0; b < 25; b++) {
                List<SimpleRecord> recs = new ArrayList<>();
                int count = 1 + c.rnd.nextInt(5);
                for (int i = 0; i < count; i++) {
                    int k = c.rnd.nextInt(30);
                    byte[] value = c.rnd.nextInt(6) == 0 ? null : c.text(20 + c.rnd.nextInt(40)); // null = tombstone
                    recs.add(new SimpleRecord(c.time.milliseconds(), c.key(k), value));
                }
                boolean idem = b % 5 == 0;
                log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.of(b % 3 == 0 ? "zstd" : "none").build(),
                        TimestampType.CREATE_TIME, 0, idem ? 3000 : RecordBatch.NO_PRODUCER_ID,
                        idem ? (short) 0 : RecordBatch.NO_PRODUCER_EPOCH, idem ? seq : RecordBatch.NO_SEQUENCE, false, 0, recs), 0);
                if (idem) seq += count;
                c.time.advance(100);
            }
            // Producer 3000's last batch of the round is then fully overwritten: the cleaner
            // must keep it as an empty batch to preserve the producer's sequence state.
            List<SimpleRecord> last = List.of(new SimpleRecord(c.time.milliseconds(), c.key(100 + round), c.text(10)),
                    new SimpleRecord(c.time.milliseconds(), c.key(101 + round), c.text(10)));
            log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                    3000, (short) 0, seq, false, 0, last), 0);
            seq += 2;
            log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                    List.of(new SimpleRecord(c.time.milliseconds(), c.key(100 + round), null),
                            new SimpleRecord(c.time.milliseconds(), c.key(101 + round), c.text(12)))), 0);
            log.roll();
            log.updateHighWatermark(log.logEndOffset());
            if (round >= 1) {
                clean(c, log);
                c.step("round " + round + ": 25 batches (keys key-0..key-29, 1 in 6 values null), an idempotent batch (pid 3000) overwritten by the next batch, roll, Cleaner.doClean");
            } else {
                c.step("round 0: 25 batches, an idempotent batch (pid 3000) overwritten by the next batch, roll (not cleaned)");
            }
            c.time.advance(60_000);
        }
        closeClean(c, log);
    }

    /** One pass of Kafka's Cleaner over a log with transactions and idempotent producers, as
     *  the live cleaner leaves a compacted topic between passes: aborted data removed while
     *  its ABORT markers and .txnindex entries stay, and the snapshot at the active segment's
     *  base naming batches the cleaner has since removed (a producer's overwritten batch, the
     *  first batch of a transaction aborted later). kseg-verify must call it healthy. */
    static void cleanedTransactions(Case c) throws Exception {
        Map<String, Object> cfg = smallSegments("cleanup.policy", "compact", "delete.retention.ms", 3_600_000,
                "min.cleanable.dirty.ratio", 0.01, "segment.bytes", 1048576);
        UnifiedLog log = Kafka.open(c.partitionDir("balances", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("balances"));
        final long p = 5000, q = 5200, t = 5100;
        short tEpoch = 0;
        int tSeq = 0;
        // Segment A. P writes keys key-0..4, Q overwrites them later in A.
        log.appendAsLeader(keyed(c, p, (short) 0, 0, false, 0, 5), 0);
        // T's transaction 1, wholly in A, aborted.
        for (int b = 0; b < 2; b++) {
            log.appendAsLeader(keyed(c, t, tEpoch, tSeq, true, 10 + 3 * b, 3), 0);
            tSeq += 3;
        }
        tEpoch = marker(c, log, t, tEpoch, true);
        tSeq = 0;
        // T's transaction 2 begins in A and is aborted in B.
        log.appendAsLeader(keyed(c, t, tEpoch, tSeq, true, 20, 2), 0);
        tSeq += 2;
        log.appendAsLeader(keyed(c, q, (short) 0, 0, false, 0, 5), 0);
        log.roll();  // the snapshot at B's base: P's last batch, T's open transaction
        // Segment B, left active: the cleaner cleans A only.
        log.appendAsLeader(keyed(c, t, tEpoch, tSeq, true, 22, 2), 0);
        tEpoch = marker(c, log, t, tEpoch, true);
        tSeq = 0;
        log.appendAsLeader(keyed(c, p, (short) 0, 5, false, 30, 1), 0);
        log.appendAsLeader(keyed(c, t, tEpoch, tSeq, true, 40, 2), 0);
        tEpoch = marker(c, log, t, tEpoch, false);
        log.updateHighWatermark(log.logEndOffset());
        c.step("segment A: idempotent P (pid 5000) keys key-0..4; transactional T (pid 5100, TV_2) transaction 1 "
                + "(2 batches) aborted; T's transaction 2 begun; idempotent Q (pid 5200) keys key-0..4; roll");
        c.step("segment B (active): T's transaction 2 goes on and is aborted; P writes key-30; T's transaction 3 committed");
        c.time.advance(1000);
        clean(c, log);
        c.step("Cleaner.doClean once, up to B's base offset: A loses P's batch, T's aborted data, keeps the markers");
        c.info.put("producer", Generate.topicConfig("producer_ids", List.of(p, t, q), "transaction_version", 2));
        closeClean(c, log);
    }

    private static MemoryRecords keyed(Case c, long pid, short epoch, int seq, boolean txn, int firstKey, int count) {
        List<SimpleRecord> recs = new ArrayList<>();
        for (int i = 0; i < count; i++) recs.add(new SimpleRecord(c.time.milliseconds(), c.key(firstKey + i), c.text(12)));
        c.time.advance(5);
        return Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0, pid, epoch, seq, txn, 0, recs);
    }

    /** A TV_2 marker (epoch + 1); returns the producer's epoch after it. */
    private static short marker(Case c, UnifiedLog log, long pid, short epoch, boolean abort) throws Exception {
        EndTransactionMarker m = new EndTransactionMarker(abort ? ControlRecordType.ABORT : ControlRecordType.COMMIT, 3);
        short next = (short) (epoch + 1);
        Kafka.appendMarker(log, MemoryRecords.withEndTransactionMarker(0L, c.time.milliseconds(), 0, pid, next, m), 0,
                TransactionVersion.TV_2);
        c.time.advance(5);
        return next;
    }

    static void clean(Case c, UnifiedLog log) throws Exception {
        Time time = c.time;
        Cleaner cleaner = new Cleaner(0, new SkimpyOffsetMap(64 * 1024), 64 * 1024, 1024 * 1024, 0.9,
                new Throttler(Double.MAX_VALUE, Long.MAX_VALUE, "cleaner-io", "bytes", time), time, tp -> { });
        cleaner.doClean(new LogToClean(log, log.logStartOffset(), log.activeSegment().baseOffset(), false), time.milliseconds());
    }

    /** message.timestamp.type=LogAppendTime: the broker stamps every batch with its clock. */
    static void logAppendTime(Case c) throws Exception {
        Map<String, Object> cfg = smallSegments("message.timestamp.type", "LogAppendTime");
        UnifiedLog log = Kafka.open(c.partitionDir("clicks", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("clicks"));
        for (int b = 0; b < 40; b++) {
            List<SimpleRecord> recs = new ArrayList<>();
            for (int i = 0; i < 1 + c.rnd.nextInt(6); i++) recs.add(c.record(c.time.milliseconds() - 5000 - c.rnd.nextInt(1000), i, true));
            log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.of(b % 2 == 0 ? "none" : "snappy").build(),
                    TimestampType.CREATE_TIME, 0, recs), 0);
            c.time.advance(1 + c.rnd.nextInt(40));
        }
        c.step("40 CreateTime batches (client timestamps ~5 s old) appended as leader; the broker rewrote them to LogAppendTime");
        closeClean(c, log);
    }

    /** CreateTime with timestamps that go backwards within and across batches. */
    static void outOfOrderTimestamps(Case c) throws Exception {
        Map<String, Object> cfg = smallSegments();
        UnifiedLog log = Kafka.open(c.partitionDir("sensors", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("sensors"));
        for (int b = 0; b < 40; b++) {
            List<SimpleRecord> recs = new ArrayList<>();
            for (int i = 0; i < 1 + c.rnd.nextInt(6); i++) {
                long ts = c.time.milliseconds() + c.rnd.nextInt(20_000) - 10_000;   // +-10 s around now
                recs.add(c.record(ts, i, false));
            }
            log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0, recs), 0);
            c.time.advance(100);
        }
        c.step("40 batches whose record timestamps are now +-10 s (out of order within and across batches)");
        closeClean(c, log);
    }

    /** The active segment as a running broker leaves it: not closed, so its .index/.timeindex
     *  stay preallocated to segment.index.bytes and zero-padded, and no snapshot at close. */
    static void activeSegment(Case c) throws Exception {
        Map<String, Object> cfg = smallSegments();
        File pdir = c.partitionDir("events", 0, cfg);
        File live = new File(c.dir, ".live");
        UnifiedLog log = Kafka.open(new File(live, pdir.getName()), cfg, c.time, 0, 0, false, c.topicId("events"));
        for (int b = 0; b < 30; b++) {
            log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                    records(c, 1 + c.rnd.nextInt(6), true)), 0);
            c.time.advance(7);
        }
        log.flush(false);
        // Copy while the log is open (indexes are mmapped, so the copy sees their contents).
        Files.createDirectories(pdir.toPath());
        for (File f : Generate.sortedFiles(new File(live, pdir.getName())))
            Files.copy(f.toPath(), new File(pdir, f.getName()).toPath(), StandardCopyOption.REPLACE_EXISTING);
        log.close();
        Generate.deleteTree(live);
        c.step("30 batches appended as leader, log.flush(), partition dir copied while the log was still open (no close)");
    }

    /** A follower-style log: each appendAsFollower call carries several batches at once, as a
     *  fetch response would, including a compressed and a transactional one. */
    static void followerMultiBatch(Case c) throws Exception {
        Map<String, Object> cfg = smallSegments();
        UnifiedLog log = Kafka.open(c.partitionDir("replica", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("replica"));
        int seq = 0;
        for (int fetch = 0; fetch < 8; fetch++) {
            List<MemoryRecords> parts = new ArrayList<>();
            long offset = log.logEndOffset();
            int n = 2 + c.rnd.nextInt(4);
            for (int b = 0; b < n; b++) {
                int count = 1 + c.rnd.nextInt(5);
                boolean idem = b % 2 == 1;
                parts.add(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.of(b == 0 ? "gzip" : "none").build(),
                        TimestampType.CREATE_TIME, offset, idem ? 4000 : RecordBatch.NO_PRODUCER_ID,
                        idem ? (short) 0 : RecordBatch.NO_PRODUCER_EPOCH, idem ? seq : RecordBatch.NO_SEQUENCE, false,
                        fetch < 4 ? 0 : 2, records(c, count, true)));
                if (idem) seq += count;
                offset += count;
                c.time.advance(2);
            }
            int size = parts.stream().mapToInt(MemoryRecords::sizeInBytes).sum();
            ByteBuffer all = ByteBuffer.allocate(size);
            for (MemoryRecords m : parts) all.put(m.buffer().duplicate());
            all.flip();
            log.appendAsFollower(MemoryRecords.readableRecords(all), fetch < 4 ? 0 : 2);
        }
        log.updateHighWatermark(log.logEndOffset());
        c.step("8 appendAsFollower calls of 2-5 batches each; leader epoch 0 then 2 (fetches 4-7)");
        closeClean(c, log);
    }

    /** Leader changes (epochs 0, 1, 3) and a log start offset moved past the first segment by
     *  retention, as the leader-epoch-checkpoint and the log-start-offset checkpoint show it. */
    static void leaderEpochsAndRetention(Case c) throws Exception {
        Map<String, Object> cfg = smallSegments("retention.bytes", 20000);
        UnifiedLog log = Kafka.open(c.partitionDir("metrics", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("metrics"));
        int[] epochs = {0, 1, 3};
        for (int e : epochs) {
            for (int b = 0; b < 25; b++) {
                log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                        records(c, 1 + c.rnd.nextInt(6), false)), e);
                c.time.advance(5);
            }
        }
        log.updateHighWatermark(log.logEndOffset());
        int deleted = log.deleteOldSegments();
        log.maybeIncrementLogStartOffset(log.logStartOffset() + 3, LogStartOffsetIncrementReason.ClientRecordDeletion);
        c.info.put("log_start_offset", log.logStartOffset());
        c.step("25 batches each at leader epochs 0, 1, 3; retention.bytes=20000 deleted " + deleted
                + " segments; then DeleteRecords moved the log start offset 3 further");
        log.flush(false);
        RootFiles.write(c, List.of(log), Map.of());
        closeClean(c, log);
    }

    /** A partition created and never written to. */
    static void empty(Case c) throws Exception {
        Map<String, Object> cfg = smallSegments();
        UnifiedLog log = Kafka.open(c.partitionDir("unused", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("unused"));
        c.step("created, nothing appended");
        closeClean(c, log);
    }

    /** One record of just over 1 MiB in an uncompressed batch exactly at the default
     *  max.message.bytes (1048588), then a small batch after it. */
    static void largeAtLimit(Case c) throws Exception {
        Map<String, Object> cfg = topicConfig("segment.index.bytes", SMALL_INDEX_BYTES);
        UnifiedLog log = Kafka.open(c.partitionDir("blobs", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("blobs"));
        // A v2 batch with one record of a 4-byte key and no headers is 61 + record bytes; the
        // record is attributes(1)+tsDelta(1)+offDelta(1)+keyLen(1)+key(4)+valLen(3)+value+hdrCount(1)
        // plus its own varint length (3): 1048588 - 61 - 15 = 1048512 value bytes.
        byte[] value = c.text(1_048_512);
        MemoryRecords big = Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                List.of(new SimpleRecord(c.time.milliseconds(), "blob".getBytes(), value)));
        c.info.put("big_batch_size_bytes", big.sizeInBytes());
        log.appendAsLeader(big, 0);
        log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                records(c, 3, false)), 0);
        c.step("one uncompressed batch of " + big.sizeInBytes() + " bytes (max.message.bytes default 1048588) holding one "
                + value.length + "-byte value, then a 3-record batch");
        closeClean(c, log);
    }

    /** A 1.1 MiB compressible record in a zstd batch (small on disk) and a gzip batch of
     *  three 100 KiB records. */
    static void largeCompressed(Case c) throws Exception {
        Map<String, Object> cfg = topicConfig("segment.index.bytes", SMALL_INDEX_BYTES);
        UnifiedLog log = Kafka.open(c.partitionDir("archive", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("archive"));
        log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.zstd().build(), TimestampType.CREATE_TIME, 0,
                List.of(new SimpleRecord(c.time.milliseconds(), "big".getBytes(), c.text(1_153_434)))), 0);
        c.time.advance(10);
        List<SimpleRecord> recs = new ArrayList<>();
        for (int i = 0; i < 3; i++) recs.add(new SimpleRecord(c.time.milliseconds(), ("part-" + i).getBytes(), c.text(102_400)));
        log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.gzip().build(), TimestampType.CREATE_TIME, 0, recs), 0);
        c.step("zstd batch with one 1153434-byte value; gzip batch with three 102400-byte values");
        closeClean(c, log);
    }

    /** Keys, values and header keys that are not plain ASCII, so that DumpLogSegments'
     *  own text for them (new String(bytes, UTF_8) and its U+FFFD replacements) is the golden:
     *  multi-byte UTF-8, malformed and truncated sequences, surrogates, overlongs, control bytes,
     *  and values around the 32- and 512-byte sizes with ASCII runs broken by all of these.
     *  Magic 2 (none, gzip, lz4, snappy) and magic 1 and 0 wrappers, appended as a follower would. */
    static void binaryValues(Case c) throws Exception {
        Map<String, Object> cfg = smallSegments("internal.segment.bytes", 65536);
        UnifiedLog log = Kafka.open(c.partitionDir("bytes", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("bytes"));
        String[] codecs = {"none", "gzip", "none", "lz4", "none", "snappy"};
        int[] sizes = {0, 1, 2, 3, 31, 32, 33, 64, 100, 511, 512, 513, 1000, 1500};
        for (int b = 0; b < 30; b++) {
            byte magic = (byte) (b % 10 == 7 ? 0 : b % 5 == 3 ? 1 : 2);
            String codec = codecs[b % codecs.length];
            List<SimpleRecord> recs = new ArrayList<>();
            int count = 1 + c.rnd.nextInt(4);
            for (int i = 0; i < count; i++) {
                byte[] key = c.rnd.nextInt(4) == 0 ? null : c.oddBytes(1 + c.rnd.nextInt(40));
                byte[] value = c.rnd.nextInt(10) == 0 ? null : c.oddBytes(sizes[c.rnd.nextInt(sizes.length)]);
                Header[] hs = new Header[0];
                if (magic >= 2 && c.rnd.nextInt(2) == 0) {
                    // Header keys are Strings in Kafka's writer: any text, but always valid UTF-8.
                    hs = new Header[] {new RecordHeader(c.oddText(1 + c.rnd.nextInt(12)), c.oddBytes(c.rnd.nextInt(20)))};
                }
                recs.add(new SimpleRecord(c.time.milliseconds(), key, value, hs));
            }
            MemoryRecords batch = Kafka.batch(magic, Compression.of(codec).build(), TimestampType.CREATE_TIME,
                    log.logEndOffset(), RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH,
                    RecordBatch.NO_SEQUENCE, false, magic >= 2 ? 0 : RecordBatch.NO_PARTITION_LEADER_EPOCH, recs);
            log.appendAsFollower(batch, 0);
            c.time.advance(10);
        }
        c.step("appendAsFollower of 30 batches of 1-4 records with non-ASCII keys, values and header keys "
                + "(magic 2, with magic 1 at batches 3,8,13,... and magic 0 at 7,17,27; codecs "
                + String.join(",", codecs) + " in turn)");
        closeClean(c, log);
    }

    /** Record values that are themselves Kafka batches (magic 2 uncompressed and gzip, magic 1),
     *  one or several end to end, with offsets near the log's own: inside the outer batches they
     *  are plain bytes, but a reader that looks for where a batch starts, as kseg-reindex's
     *  threads do for their blocks, finds whole valid batches there. Outer batches: magic 2
     *  uncompressed, 40 of them over three segments. */
    static void nestedBatches(Case c) throws Exception {
        Map<String, Object> cfg = smallSegments("internal.segment.bytes", 65536);
        UnifiedLog log = Kafka.open(c.partitionDir("nested", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("nested"));
        String[] inner = {"none", "gzip", "none"};
        for (int b = 0; b < 40; b++) {
            List<SimpleRecord> recs = new ArrayList<>();
            int count = 1 + c.rnd.nextInt(4);
            for (int i = 0; i < count; i++) {
                java.io.ByteArrayOutputStream value = new java.io.ByteArrayOutputStream();
                int copies = 1 + c.rnd.nextInt(3);
                for (int k = 0; k < copies; k++) {
                    byte magic = (byte) ((b + i + k) % 4 == 3 ? 1 : 2);
                    long baseOffset = log.logEndOffset() + c.rnd.nextInt(50);
                    MemoryRecords batch = Kafka.batch(magic, Compression.of(inner[(b + k) % inner.length]).build(),
                            TimestampType.CREATE_TIME, baseOffset, records(c, 1 + c.rnd.nextInt(5), false));
                    ByteBuffer bytes = batch.buffer().duplicate();
                    byte[] raw = new byte[bytes.remaining()];
                    bytes.get(raw);
                    value.write(raw);
                }
                recs.add(new SimpleRecord(c.time.milliseconds(), ("k" + i).getBytes(), value.toByteArray()));
            }
            log.appendAsLeader(
                    Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0, recs), 0);
            c.time.advance(10);
        }
        c.step("appendAsLeader of 40 uncompressed batches of 1-4 records whose values are 1-3 Kafka-built batches "
                + "end to end (magic 2 none/gzip, magic 1), with base offsets near the log end offset");
        closeClean(c, log);
    }

    static void closeClean(Case c, UnifiedLog log) {
        log.close();
        c.step("closed the log (UnifiedLog.close, as at a clean shutdown)");
    }
}
