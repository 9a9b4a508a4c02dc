// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.TaggedFields;
import org.apache.kafka.common.protocol.types.Type;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.internals.ByteUtils;
import org.apache.kafka.common.metadata.MetadataRecordType;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/** Every record type and version Kafka 4.4 defines for __cluster_metadata, __consumer_offsets and
 *  __transaction_state, each in three variants, serialized from Kafka's own schemas (the SCHEMAS of
 *  its generated message classes) with Kafka's protocol Struct: "set" (every field a value,
 *  tagged fields present, nullable ones not null), "null" (nullable fields null, tagged fields
 *  absent), "empty" (arrays and strings empty, tagged fields absent) and "empty-tagged" (the same
 *  with tagged fields present, and one element in each array of structs: an empty list is not
 *  a null one). The goldens are DumpLogSegments'
 *  decoders printing them, so kseg's tables are checked against every field of every version. */
final class RecordTypes {
    private RecordTypes() { }

    static final String[] VARIANTS = {"set", "null", "empty", "empty-tagged"};
    /** Variant "unknown-tags": "set", and in every tagged-fields section tags no schema of Kafka
     *  4.4 names (as a newer Kafka's records carry), written by Kafka's own TaggedFields as
     *  RawTaggedField: UNKNOWN_TAGS[i] with UNKNOWN_TAG_DATA[i]. */
    static final int UNKNOWN_TAGGED = 4;
    static final int[] UNKNOWN_TAGS = {77, 300};
    static final byte[][] UNKNOWN_TAG_DATA = {{7, 7, 7}, {}};

    /** The "unknown-tags" case: every flexible record type and version of the coordinator topics
     *  and of __cluster_metadata, written as "set" plus unknown tagged fields at every level (the
     *  remote log metadata records are in record-types). DumpLogSegments' decoders drop those
     *  fields; kseg-dump prints what they print, and its JSON keeps them. */
    static void unknownTags(Case c) throws Exception {
        Map<String, Object> cfg = Generate.topicConfig("segment.index.bytes", Generate.SMALL_INDEX_BYTES,
                "internal.segment.bytes", 1 << 20, "index.interval.bytes", 4096);
        List<String> made = new ArrayList<>();
        UnifiedLog meta = Kafka.open(c.partitionDir("__cluster_metadata", 0, cfg), cfg, c.time, 0, 0, false, Uuid.METADATA_TOPIC_ID);
        List<SimpleRecord> recs = new ArrayList<>();
        int otherVersionTags = 0;
        for (MetadataRecordType t : MetadataRecordType.values()) {
            ApiMessage m = t.newMetadataRecord();
            for (short v = t.lowestSupportedVersion(); v <= t.highestSupportedVersion(); v++) {
                if (v < m.lowestSupportedVersion() || !flexible(schema(m, v))) continue;
                recs.add(new SimpleRecord(c.time.milliseconds(), null, framed(t.id(), v, serialize(schema(m, v), UNKNOWN_TAGGED))));
                // A tag another version of the record defines, at this version: Kafka's reader
                // refuses it ("Tag N is not valid for version V").
                for (int tag : otherVersionsTags(m, v)) {
                    Struct st = fill(schema(m, v), 0);
                    NavigableMap<Integer, Object> tagged = new TreeMap<>();
                    tagged.put(tag, new org.apache.kafka.common.protocol.types.RawTaggedField(tag, new byte[]{1}));
                    st.set("_tagged_fields", tagged);
                    ByteBuffer body = ByteBuffer.allocate(st.sizeOf());
                    st.writeTo(body);
                    recs.add(new SimpleRecord(c.time.milliseconds(), null, framed(t.id(), v, body.flip())));
                    otherVersionTags++;
                }
            }
        }
        meta.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false, 1, recs),
                1, AppendOrigin.RAFT_LEADER);
        c.time.advance(1);
        meta.updateHighWatermark(meta.logEndOffset());
        made.add(recs.size() + " metadata records: every flexible MetadataRecordType version, unknown tags at every level; "
                + otherVersionTags + " of them carry at their version a tag another version defines");
        MoreCases.closeClean(c, meta);
        for (var e : List.of(
                Map.entry("__consumer_offsets", java.util.Arrays.stream(org.apache.kafka.coordinator.group.generated.CoordinatorRecordType.values())
                        .map(t -> new Coordinator(t.id(), t.newRecordKey(), t.newRecordValue())).toList()),
                Map.entry("__transaction_state", java.util.Arrays.stream(org.apache.kafka.coordinator.transaction.generated.CoordinatorRecordType.values())
                        .map(t -> new Coordinator(t.id(), t.newRecordKey(), t.newRecordValue())).toList()),
                Map.entry("__share_group_state", java.util.Arrays.stream(org.apache.kafka.coordinator.share.generated.CoordinatorRecordType.values())
                        .map(t -> new Coordinator(t.id(), t.newRecordKey(), t.newRecordValue())).toList()))) {
            UnifiedLog log = Kafka.open(c.partitionDir(e.getKey(), 0, cfg), cfg, c.time, 0, 0, false, c.topicId(e.getKey()));
            List<SimpleRecord> rs = new ArrayList<>();
            for (Coordinator t : e.getValue())
                for (short v = t.value().lowestSupportedVersion(); v <= t.value().highestSupportedVersion(); v++) {
                    if (flexible(schema(t.value(), v))) rs.add(coordinatorRecord(c, t.id(), t.key(), t.value(), v, UNKNOWN_TAGGED));
                }
            log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0, rs), 0,
                    AppendOrigin.COORDINATOR);
            c.time.advance(1);
            log.updateHighWatermark(log.logEndOffset());
            MoreCases.closeClean(c, log);
            made.add(rs.size() + " " + e.getKey() + " records: every flexible value version, unknown tags at every level");
        }
        // __remote_log_metadata: its four record types (api keys 0-3), framed as RemoteLogMetadataSerde
        // frames them (frame version 1, api key, version), "set" values (valid for its reader) and
        // the unknown tags; --remote-log-metadata-decoder prints the objects' toString().
        UnifiedLog rlm = Kafka.open(c.partitionDir("__remote_log_metadata", 0, cfg), cfg, c.time, 0, 0, false,
                c.topicId("__remote_log_metadata"));
        List<SimpleRecord> rr = new ArrayList<>();
        ApiMessage[] remote = {
                new org.apache.kafka.server.log.remote.metadata.storage.generated.RemoteLogSegmentMetadataRecord(),
                new org.apache.kafka.server.log.remote.metadata.storage.generated.RemoteLogSegmentMetadataUpdateRecord(),
                new org.apache.kafka.server.log.remote.metadata.storage.generated.RemotePartitionDeleteMetadataRecord(),
                new org.apache.kafka.server.log.remote.metadata.storage.generated.RemoteLogSegmentMetadataSnapshotRecord()};
        for (ApiMessage m : remote) {
            short v = m.highestSupportedVersion();
            rr.add(new SimpleRecord(c.time.milliseconds(), null, framed(m.apiKey(), v, serialize(schema(m, v), UNKNOWN_TAGGED))));
        }
        rlm.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0, rr), 0,
                AppendOrigin.CLIENT);
        c.time.advance(1);
        rlm.updateHighWatermark(rlm.logEndOffset());
        MoreCases.closeClean(c, rlm);
        made.add(rr.size() + " __remote_log_metadata records: each record type, unknown tags at every level");
        for (String s : made) c.step(s);
        c.info.put("unknown_tags", Generate.topicConfig("tags", java.util.Arrays.toString(UNKNOWN_TAGS),
                "data", java.util.Arrays.deepToString(UNKNOWN_TAG_DATA),
                "where", "every tagged-fields section of every flexible value (every field otherwise set, known tagged fields present)"));
    }

    /** The top-level tags other flexible versions of `m` define and version `v` does not. */
    static java.util.SortedSet<Integer> otherVersionsTags(ApiMessage m, short v) throws Exception {
        java.util.SortedSet<Integer> out = new java.util.TreeSet<>();
        for (short w = m.lowestSupportedVersion(); w <= m.highestSupportedVersion(); w++)
            for (BoundField f : schema(m, w).fields())
                if (f.def.type instanceof TaggedFields tf) out.addAll(taggedFields(tf).keySet());
        for (BoundField f : schema(m, v).fields())
            if (f.def.type instanceof TaggedFields tf) out.removeAll(taggedFields(tf).keySet());
        return out;
    }

    static boolean flexible(Schema s) {
        for (BoundField f : s.fields()) if (f.def.type instanceof TaggedFields) return true;
        return false;
    }

    static void recordTypes(Case c) throws Exception {
        Map<String, Object> cfg = Generate.topicConfig("segment.index.bytes", Generate.SMALL_INDEX_BYTES,
                "internal.segment.bytes", 1 << 20, "index.interval.bytes", 4096);
        List<String> made = new ArrayList<>();

        // KRaft metadata records: frame version 1, api key, version (unsigned varints), body.
        UnifiedLog meta = Kafka.open(c.partitionDir("__cluster_metadata", 0, cfg), cfg, c.time, 0, 0, false, Uuid.METADATA_TOPIC_ID);
        int count = 0;
        for (MetadataRecordType t : MetadataRecordType.values()) {
            ApiMessage m = t.newMetadataRecord();
            for (short v = t.lowestSupportedVersion(); v <= t.highestSupportedVersion(); v++) {
                List<SimpleRecord> recs = new ArrayList<>();
                for (int variant = 0; variant < VARIANTS.length; variant++) {
                    recs.add(new SimpleRecord(c.time.milliseconds(), null, framed(t.id(), v, serialize(schema(m, v), variant))));
                    count++;
                }
                // The raft leader's appends carry their own offsets.
                meta.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME,
                        meta.logEndOffset(),
                        RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false, 1, recs),
                        1, AppendOrigin.RAFT_LEADER);
                c.time.advance(1);
            }
        }
        meta.updateHighWatermark(meta.logEndOffset());
        made.add(count + " metadata records: every MetadataRecordType x version x variant, one batch per type and version");
        MoreCases.closeClean(c, meta);

        // Coordinator records: int16 key version (the record type), key; int16 value version, value.
        made.add(coordinatorTopic(c, cfg, "__consumer_offsets", "group",
                java.util.Arrays.stream(org.apache.kafka.coordinator.group.generated.CoordinatorRecordType.values())
                        .map(t -> new Coordinator(t.id(), t.newRecordKey(), t.newRecordValue())).toList()));
        made.add(coordinatorTopic(c, cfg, "__transaction_state", "transaction",
                java.util.Arrays.stream(org.apache.kafka.coordinator.transaction.generated.CoordinatorRecordType.values())
                        .map(t -> new Coordinator(t.id(), t.newRecordKey(), t.newRecordValue())).toList()));
        made.add(coordinatorTopic(c, cfg, "__share_group_state", "share",
                java.util.Arrays.stream(org.apache.kafka.coordinator.share.generated.CoordinatorRecordType.values())
                        .map(t -> new Coordinator(t.id(), t.newRecordKey(), t.newRecordValue())).toList()));
        made.add(remoteLogMetadataTopic(c, cfg));
        for (String s : made) c.step(s);
        c.info.put("variants", Generate.topicConfig("set", "every field a value (1, 2, 3, ... by kind; one array element), tagged fields present",
                "null", "nullable fields null, tagged fields absent", "empty", "arrays empty, strings empty, tagged fields absent",
                "empty-tagged", "arrays empty, strings empty, tagged fields present"));
    }

    /** __remote_log_metadata as TopicBasedRemoteLogMetadataManager writes it: each record kind
     *  through Kafka's own RemoteLogMetadataSerde (every state, custom metadata absent, empty and
     *  set, leader epochs out of order), then values Kafka's deserializer rejects, each with the
     *  error DumpLogSegments prints: the frame, the type and the body cut short or wrong. */
    static String remoteLogMetadataTopic(Case c, Map<String, Object> cfg) throws Exception {
        UnifiedLog log = Kafka.open(c.partitionDir("__remote_log_metadata", 0, cfg), cfg, c.time, 0, 0, false,
                c.topicId("__remote_log_metadata"));
        var serde = new org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde();
        var tip = new org.apache.kafka.common.TopicIdPartition(new Uuid(0x0123456789abcdefL, 0x0fedcba987654321L),
                new org.apache.kafka.common.TopicPartition("orders", 3));
        var tip2 = new org.apache.kafka.common.TopicIdPartition(new Uuid(-2L, 7L),
                new org.apache.kafka.common.TopicPartition("a.b_c-d", 0));
        var id = new org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId(tip, new Uuid(42L, -42L));
        var id2 = new org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId(tip2, new Uuid(1L << 62, 3L));
        var states = org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState.values();
        java.util.List<java.util.Optional<org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata>> customs =
                List.of(java.util.Optional.empty(),
                        java.util.Optional.of(new org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata(new byte[0])),
                        java.util.Optional.of(new org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata(new byte[] {1, 2, 3, 4})));
        Map<Integer, Long> epochs = new java.util.HashMap<>();
        epochs.put(7, 900L);
        epochs.put(0, 100L);
        epochs.put(3, 250L);
        List<byte[]> values = new ArrayList<>();
        int i = 0;
        for (var state : states) {
            for (var custom : customs) {
                values.add(serde.serialize(new org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata(
                        (i % 2 == 0) ? id : id2, 100L * i, 100L * i + 99, 1_700_000_000_000L + i, i, 1_700_000_100_000L + i,
                        4096 * (i + 1), custom, state, i % 2 == 0 ? epochs : Map.of(5, 100L * i), i % 3 == 0)));
                values.add(serde.serialize(new org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate(
                        (i % 2 == 0) ? id2 : id, 1_700_000_200_000L + i, custom, state, 2 * i)));
                i++;
            }
        }
        for (var state : org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteState.values())
            values.add(serde.serialize(new org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata(
                    tip, state, 1_700_000_300_000L, 5)));
        for (var custom : customs)
            values.add(serde.serialize(new org.apache.kafka.server.log.remote.metadata.storage.RemoteLogSegmentMetadataSnapshot(
                    new Uuid(9L, 9L), 5L, 10L, 1_700_000_400_000L, 1, 1_700_000_500_000L, 512, custom,
                    states[1], epochs, true)));
        int good = values.size();
        byte[] seg = values.get(0);
        // Values Kafka's deserializer rejects: frame versions 0 and 2, an unknown type, varints
        // cut short or too large, a body cut short, bytes after the body, unknown states.
        values.add(new byte[0]);
        values.add(new byte[] {0, 0, 0});
        values.add(new byte[] {2, 0, 0});
        values.add(new byte[] {1, 7, 0});
        values.add(new byte[] {1});
        values.add(new byte[] {1, 0});
        values.add(new byte[] {1, (byte) 0x80});
        values.add(new byte[] {1, (byte) 0x80, (byte) 0x80, 0x04, 0});
        values.add(java.util.Arrays.copyOf(seg, seg.length - 3));
        values.add(java.util.Arrays.copyOf(seg, seg.length + 2));
        byte[] badState = values.get(1).clone();  // an update: its state is the last byte before the tagged fields
        badState[badState.length - 2] = 9;
        values.add(badState);
        byte[] badDelete = values.get(2 * customs.size() * states.length).clone();
        badDelete[badDelete.length - 2] = 9;
        values.add(badDelete);
        // Version 1 of each type (the nested structs refuse it), headers whose varints pass 2^31
        // (Kafka keeps their low 16 bits), and tag 0 declared 2 bytes long (Kafka reads one).
        for (int k : new int[] {0, 1, 2 * customs.size() * states.length, good - 1}) {
            byte[] v1 = values.get(k).clone();
            v1[2] = 1;
            values.add(v1);
        }
        values.add(concat(new byte[] {(byte) 0x81, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08},
                java.util.Arrays.copyOfRange(seg, 1, seg.length)));
        values.add(concat(new byte[] {1, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08},
                java.util.Arrays.copyOfRange(seg, 2, seg.length)));
        byte[] wideTag = java.util.Arrays.copyOf(seg, seg.length + 1);  // seg ends: count 1, tag 0, size 1, value
        wideTag[seg.length - 2] = 2;
        values.add(wideTag);
        values.add(null);
        List<SimpleRecord> recs = new ArrayList<>();
        for (int k = 0; k < values.size(); k++)
            recs.add(new SimpleRecord(c.time.milliseconds(), k == 3 ? "key".getBytes() : null, values.get(k)));
        log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0, recs), 0,
                AppendOrigin.CLIENT);
        c.time.advance(1);
        log.updateHighWatermark(log.logEndOffset());
        MoreCases.closeClean(c, log);
        return values.size() + " __remote_log_metadata records: " + good + " written by RemoteLogMetadataSerde (every "
                + "segment and partition-delete state, snapshots, custom metadata absent, empty and set), "
                + (values.size() - good) + " it rejects or reads oddly (one null)";
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** One coordinator record type: the id is its key version. */
    record Coordinator(short id, ApiMessage key, ApiMessage value) { }

    static String coordinatorTopic(Case c, Map<String, Object> cfg, String topic, String kind, List<Coordinator> types)
            throws Exception {
        UnifiedLog log = Kafka.open(c.partitionDir(topic, 0, cfg), cfg, c.time, 0, 0, false, c.topicId(topic));
        int count = 0;
        for (Coordinator t : types) count += appendCoordinator(c, log, t.id(), t.key(), t.value());
        log.updateHighWatermark(log.logEndOffset());
        MoreCases.closeClean(c, log);
        return count + " " + topic + " records: every " + kind + " CoordinatorRecordType x value version x variant";
    }

    static int appendCoordinator(Case c, UnifiedLog log, short type, ApiMessage key, ApiMessage value) throws Exception {
        List<SimpleRecord> recs = new ArrayList<>();
        for (short v = value.lowestSupportedVersion(); v <= value.highestSupportedVersion(); v++) {
            for (int variant = 0; variant < VARIANTS.length; variant++)
                recs.add(coordinatorRecord(c, type, key, value, v, variant));
        }
        log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0, recs), 0,
                AppendOrigin.COORDINATOR);
        c.time.advance(1);
        return recs.size();
    }

    /** A coordinator record: int16 type, the key (its highest version, "set"); int16 version, the value. */
    static SimpleRecord coordinatorRecord(Case c, short type, ApiMessage key, ApiMessage value, short v, int variant)
            throws Exception {
        ByteBuffer k = serialize(schema(key, key.highestSupportedVersion()), 0);
        ByteBuffer kb = ByteBuffer.allocate(2 + k.remaining()).putShort(type).put(k).flip();
        ByteBuffer vb0 = serialize(schema(value, v), variant);
        ByteBuffer vb = ByteBuffer.allocate(2 + vb0.remaining()).putShort(v).put(vb0).flip();
        return new SimpleRecord(c.time.milliseconds(), bytes(kb), bytes(vb));
    }

    /** A metadata-style record value (__cluster_metadata, __remote_log_metadata): frame version 1,
     *  api key, version (unsigned varints), body. */
    static byte[] framed(int apiKey, short version, ByteBuffer body) {
        ByteBuffer value = ByteBuffer.allocate(15 + body.remaining());
        ByteUtils.writeUnsignedVarint(1, value);
        ByteUtils.writeUnsignedVarint(apiKey, value);
        ByteUtils.writeUnsignedVarint(version, value);
        value.put(body).flip();
        return bytes(value);
    }

    static Schema schema(ApiMessage m, short version) throws Exception {
        Schema[] schemas = (Schema[]) m.getClass().getField("SCHEMAS").get(null);
        return schemas[version];
    }

    static ByteBuffer serialize(Schema s, int variant) {
        Struct st = fill(s, variant);
        ByteBuffer buf = ByteBuffer.allocate(st.sizeOf());
        st.writeTo(buf);
        return buf.flip();
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    static Struct fill(Schema s, int variant) {
        Struct st = new Struct(s);
        for (BoundField f : s.fields()) st.set(f, value(f.def, variant));
        return st;
    }

    @SuppressWarnings("unchecked")
    static Object value(Field f, int variant) {
        Type t = f.type;
        if (t instanceof TaggedFields tf) {
            NavigableMap<Integer, Object> present = new TreeMap<>();
            if (variant == 0 || variant == 3 || variant == UNKNOWN_TAGGED) {
                for (Map.Entry<Integer, Field> e : taggedFields(tf).entrySet())
                    present.put(e.getKey(), value(e.getValue(), variant));
            }
            if (variant == UNKNOWN_TAGGED)
                for (int i = 0; i < UNKNOWN_TAGS.length; i++)
                    present.put(UNKNOWN_TAGS[i], new org.apache.kafka.common.protocol.types.RawTaggedField(UNKNOWN_TAGS[i], UNKNOWN_TAG_DATA[i]));
            return present;
        }
        return value(t, variant);
    }

    static Object value(Type t, int variant) {
        if (t instanceof Schema s) return fill(s, variant);
        final int as = variant == UNKNOWN_TAGGED ? 0 : variant;  // its values are those of "set"
        if (t.isArray()) {
            if (as == 1 && t.isNullable()) return null;
            // empty-tagged: one element of a struct array, so that tagged fields nested in
            // it are written too; every other array empty.
            Type element = t.arrayElementType().orElseThrow();
            if (as == 3 && element instanceof Schema) return new Object[]{value(element, variant)};
            // unknown-tags: two elements of a struct array, so paths name each.
            if (variant == UNKNOWN_TAGGED && element instanceof Schema)
                return new Object[]{value(element, variant), value(element, variant)};
            if (as >= 2) return new Object[0];
            return new Object[]{value(element, variant)};
        }
        if (as == 1 && t.isNullable()) return null;
        String name = t.toString();
        switch (name) {
            case "BOOLEAN": return true;
            case "INT8": return (byte) 1;
            case "INT16": return (short) 2;
            case "UINT16": return 3;
            case "INT32": return 4;
            case "UNSIGNED_INT32": return 5L;
            case "INT64": return 6L;
            case "VARINT": return 7;
            case "VARLONG": return 8L;
            case "UUID": return new Uuid(0x0102030405060708L, 0x090a0b0c0d0e0f10L);
            case "FLOAT64": return 1.5;
            default: break;
        }
        if (name.contains("STRING")) return as >= 2 ? "" : "s";
        if (name.contains("BYTES")) return ByteBuffer.wrap(as >= 2 ? new byte[0] : new byte[]{1, 2, 3});
        throw new IllegalStateException("no value for type " + name);
    }

    /** TaggedFields keeps its tag -> field map private; the schema is Kafka's, so read it. */
    @SuppressWarnings("unchecked")
    static Map<Integer, Field> taggedFields(TaggedFields tf) {
        try {
            for (java.lang.reflect.Field jf : TaggedFields.class.getDeclaredFields()) {
                if (Map.class.isAssignableFrom(jf.getType())) {
                    jf.setAccessible(true);
                    return (Map<Integer, Field>) jf.get(tf);
                }
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalStateException("TaggedFields has no map of fields");
    }
}
