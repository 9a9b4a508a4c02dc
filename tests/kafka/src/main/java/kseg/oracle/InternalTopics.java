// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.KRaftVersionRecord;
import org.apache.kafka.common.message.LeaderChangeMessage;
import org.apache.kafka.common.metadata.ConfigRecord;
import org.apache.kafka.common.metadata.FeatureLevelRecord;
import org.apache.kafka.common.metadata.NoOpRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordHelpers;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.OffsetAndMetadata;
import org.apache.kafka.coordinator.transaction.TransactionLog;
import org.apache.kafka.coordinator.transaction.TransactionState;
import org.apache.kafka.coordinator.transaction.TxnTransitMetadata;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.raft.internals.BatchBuilder;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.common.KRaftVersion;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.apache.kafka.server.common.TransactionVersion;
import org.apache.kafka.snapshot.FileRawSnapshotWriter;
import org.apache.kafka.snapshot.RecordsSnapshotWriter;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.UnifiedLog;

import static kseg.oracle.Generate.SMALL_INDEX_BYTES;
import static kseg.oracle.Generate.topicConfig;

/** Segments of Kafka's internal topics, with records made by the coordinators' own record
 *  helpers and serdes, appended as the coordinators / the KRaft leader append them. */
final class InternalTopics {
    private InternalTopics() { }

    static Map<String, Object> compacted() {
        return topicConfig("cleanup.policy", "compact", "compression.type", "producer",
                "segment.index.bytes", SMALL_INDEX_BYTES, "internal.segment.bytes", 16384, "index.interval.bytes", 512);
    }

    static void appendCoordinator(Case c, UnifiedLog log, List<CoordinatorRecord> recs, long pid, short epoch, int seq,
                                  boolean txn) throws Exception {
        GroupCoordinatorRecordSerde serde = new GroupCoordinatorRecordSerde();
        List<SimpleRecord> out = new ArrayList<>();
        for (CoordinatorRecord r : recs)
            out.add(new SimpleRecord(c.time.milliseconds(), serde.serializeKey(r), serde.serializeValue(r)));
        log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0, pid, epoch,
                seq, txn, 0, out), 0, AppendOrigin.COORDINATOR);
        c.time.advance(50);
    }

    /** __consumer_offsets-0: offset commits (one with metadata and leader epoch), offset
     *  tombstones, modern consumer-group epoch and assignment records, and a transactional
     *  offset commit followed by its COMMIT marker. */
    static void consumerOffsets(Case c) throws Exception {
        Map<String, Object> cfg = compacted();
        UnifiedLog log = Kafka.open(c.partitionDir("__consumer_offsets", 0, cfg), cfg, c.time, 0, 0, false,
                c.topicId("__consumer_offsets"));
        Uuid orders = c.topicId("orders");
        for (int round = 0; round < 6; round++) {
            List<CoordinatorRecord> recs = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                recs.add(GroupCoordinatorRecordHelpers.newOffsetCommitRecord("billing", "orders", p,
                        new OffsetAndMetadata(100L * round + p, round % 2 == 0 ? OptionalInt.of(round) : OptionalInt.empty(),
                                p == 0 ? "checkpoint-" + round : "", c.time.milliseconds(), OptionalLong.empty(), orders)));
            }
            appendCoordinator(c, log, recs, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false);
            appendCoordinator(c, log, List.of(
                    GroupCoordinatorRecordHelpers.newConsumerGroupEpochRecord("search", round + 1, 1000L + round),
                    GroupCoordinatorRecordHelpers.newConsumerGroupTargetAssignmentMetadataRecord("search", round + 1, 2000L + round),
                    GroupCoordinatorRecordHelpers.newConsumerGroupTargetAssignmentRecord("search", "member-" + round,
                            Map.of(orders, new java.util.TreeSet<>(List.of(0, 1 + round % 3))))),
                    RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false);
        }
        appendCoordinator(c, log, List.of(GroupCoordinatorRecordHelpers.newOffsetCommitTombstoneRecord("billing", "orders", 2),
                GroupCoordinatorRecordHelpers.newConsumerGroupTargetAssignmentTombstoneRecord("search", "member-0")),
                RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false);
        // A transactional offset commit (TxnOffsetCommit) and the marker that completes it.
        appendCoordinator(c, log, List.of(GroupCoordinatorRecordHelpers.newOffsetCommitRecord("etl", "orders", 0,
                new OffsetAndMetadata(777L, OptionalInt.of(3), "", c.time.milliseconds(), OptionalLong.empty(), orders))),
                5000L, (short) 0, 0, true);
        Kafka.appendMarker(log, MemoryRecords.withEndTransactionMarker(0L, c.time.milliseconds(), 0, 5000L, (short) 0,
                new EndTransactionMarker(ControlRecordType.COMMIT, 2)), 0);
        log.updateHighWatermark(log.logEndOffset());
        c.step("6 rounds of offset commits (group billing) and consumer-group records (group search); tombstones; "
                + "a transactional offset commit by producer 5000 + COMMIT marker (coordinator epoch 2)");
        MoreCases.closeClean(c, log);
    }

    /** __transaction_state-0: state transitions of three transactional ids written with
     *  TransactionLog's serializer, and a tombstone for an expired id. */
    static void transactionState(Case c) throws Exception {
        Map<String, Object> cfg = compacted();
        UnifiedLog log = Kafka.open(c.partitionDir("__transaction_state", 0, cfg), cfg, c.time, 0, 0, false,
                c.topicId("__transaction_state"));
        TransactionState[] flow = {TransactionState.EMPTY, TransactionState.ONGOING, TransactionState.PREPARE_COMMIT,
                TransactionState.COMPLETE_COMMIT, TransactionState.ONGOING, TransactionState.PREPARE_ABORT,
                TransactionState.COMPLETE_ABORT};
        for (int step = 0; step < flow.length; step++) {
            List<SimpleRecord> recs = new ArrayList<>();
            for (int id = 0; id < 3; id++) {
                TransactionVersion tv = id == 2 ? TransactionVersion.TV_2 : TransactionVersion.TV_0;
                short epoch = (short) (tv == TransactionVersion.TV_2 ? step : 0);   // TV2 bumps the epoch per transaction end
                HashSet<TopicPartition> parts = new HashSet<>();
                if (flow[step] != TransactionState.EMPTY && flow[step] != TransactionState.COMPLETE_COMMIT
                        && flow[step] != TransactionState.COMPLETE_ABORT) {
                    parts.add(new TopicPartition("ledger", id));
                }
                TxnTransitMetadata m = new TxnTransitMetadata(7000 + id, -1, -1, epoch, (short) -1, 60_000, flow[step], parts,
                        flow[step] == TransactionState.EMPTY ? -1 : c.time.milliseconds() - 100, c.time.milliseconds(), tv);
                recs.add(new SimpleRecord(c.time.milliseconds(), TransactionLog.keyToBytes("txn-" + id), TransactionLog.valueToBytes(m, tv)));
            }
            log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0, recs), 0,
                    AppendOrigin.COORDINATOR);
            c.time.advance(200);
        }
        log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                List.of(new SimpleRecord(c.time.milliseconds(), TransactionLog.keyToBytes("txn-expired"), null))), 0,
                AppendOrigin.COORDINATOR);
        log.updateHighWatermark(log.logEndOffset());
        c.step("7 batches of state transitions (EMPTY, ONGOING, PREPARE_COMMIT, COMPLETE_COMMIT, ONGOING, PREPARE_ABORT, "
                + "COMPLETE_ABORT) for txn-0/txn-1 (TV_0) and txn-2 (TV_2), then a tombstone for txn-expired");
        MoreCases.closeClean(c, log);
    }

    static ApiMessageAndVersion mv(ApiMessage m) { return new ApiMessageAndVersion(m, m.highestSupportedVersion()); }

    static List<ApiMessageAndVersion> metadata(Case c, int round) {
        List<ApiMessageAndVersion> l = new ArrayList<>();
        if (round == 0) {
            l.add(mv(new FeatureLevelRecord().setName("metadata.version").setFeatureLevel((short) 27)));
            l.add(mv(new RegisterBrokerRecord().setBrokerId(1).setBrokerEpoch(42).setIncarnationId(c.topicId("incarnation"))
                    .setRack("r1")));
        }
        Uuid id = c.topicId("topic-" + round);
        l.add(mv(new TopicRecord().setName("topic-" + round).setTopicId(id)));
        for (int p = 0; p < 2; p++)
            l.add(mv(new PartitionRecord().setPartitionId(p).setTopicId(id).setReplicas(List.of(1)).setIsr(List.of(1))
                    .setLeader(1).setLeaderEpoch(0).setPartitionEpoch(0)));
        l.add(mv(new ConfigRecord().setResourceType((byte) 2).setResourceName("topic-" + round)
                .setName("cleanup.policy").setValue(round % 2 == 0 ? "delete" : "compact")));
        l.add(mv(new NoOpRecord()));
        return l;
    }

    /** __cluster_metadata-0 as the KRaft leader writes it (LeaderChange and KRaftVersion
     *  control batches, metadata batches built by raft's BatchBuilder), plus a snapshot
     *  <offset>-<epoch>.checkpoint written by RecordsSnapshotWriter. */
    static void clusterMetadata(Case c) throws Exception {
        Map<String, Object> cfg = topicConfig("segment.index.bytes", SMALL_INDEX_BYTES, "internal.segment.bytes", 8192,
                "index.interval.bytes", 512);
        java.io.File pdir = c.partitionDir("__cluster_metadata", 0, cfg);
        UnifiedLog log = Kafka.open(pdir, cfg, c.time, 0, 0, false, Uuid.METADATA_TOPIC_ID);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int epoch = 1;
        List<List<ApiMessageAndVersion>> rounds = new ArrayList<>();
        for (int round = 0; round < 8; round++) {
            if (round == 0 || round == 5) {
                if (round == 5) epoch = 2;
                LeaderChangeMessage lc = new LeaderChangeMessage().setLeaderId(1)
                        .setVoters(List.of(new LeaderChangeMessage.Voter().setVoterId(1)))
                        .setGrantingVoters(List.of(new LeaderChangeMessage.Voter().setVoterId(1)));
                log.appendAsLeader(MemoryRecords.withLeaderChangeMessage(log.logEndOffset(), c.time.milliseconds(), epoch,
                        ByteBuffer.allocate(256), lc), epoch, AppendOrigin.RAFT_LEADER);
            }
            if (round == 0) {
                log.appendAsLeader(MemoryRecords.withKRaftVersionRecord(log.logEndOffset(), c.time.milliseconds(), epoch,
                        ByteBuffer.allocate(256), new KRaftVersionRecord().setKRaftVersion((short) 1)), epoch, AppendOrigin.RAFT_LEADER);
            }
            BatchBuilder<ApiMessageAndVersion> b = new BatchBuilder<>(ByteBuffer.allocate(4096), MetadataRecordSerde.INSTANCE,
                    round == 3 ? Compression.lz4().build() : Compression.NONE, log.logEndOffset(), c.time.milliseconds(),
                    epoch, 8 * 1024 * 1024);
            List<ApiMessageAndVersion> recs = metadata(c, round);
            for (ApiMessageAndVersion r : recs) b.appendRecord(r, cache);
            rounds.add(recs);
            log.appendAsLeader(b.build(), epoch, AppendOrigin.RAFT_LEADER);
            c.time.advance(500);
        }
        log.updateHighWatermark(log.logEndOffset());
        // A snapshot of everything so far, as the controller's snapshot generator writes it.
        RecordsSnapshotWriter<ApiMessageAndVersion> w = new RecordsSnapshotWriter.Builder()
                .setTime(c.time).setKraftVersion(KRaftVersion.KRAFT_VERSION_0)
                .setMaxBatchSizeBytes(8 * 1024 * 1024)   // KafkaRaftClient.MAX_BATCH_SIZE_BYTES
                .setLastContainedLogTimestamp(c.time.milliseconds())
                .setRawSnapshotWriter(FileRawSnapshotWriter.create(pdir.toPath(), new OffsetAndEpoch(log.logEndOffset(), epoch)))
                .build(MetadataRecordSerde.INSTANCE);
        for (List<ApiMessageAndVersion> recs : rounds) w.append(recs);   // one batch per round
        w.freeze();
        w.close();
        c.step("8 metadata batches (round 3 lz4) after LeaderChange (epochs 1 and 2) and KRaftVersion control batches, "
                + "appended as RAFT_LEADER; then a snapshot at the log end offset with all metadata records");
        MoreCases.closeClean(c, log);
    }
}
