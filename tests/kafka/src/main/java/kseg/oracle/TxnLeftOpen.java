// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.util.Properties;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Two transactions of COUNT records each, left open by a producer process that dies after
 * flushing them (as a crashed application): first plain-writer to partition 0 of TOPIC_PLAIN
 * with a transaction.timeout.ms of 2 s, then, 4 s later (the coordinator has aborted that one
 * by then), tpc-writer to partition 0 of TOPIC_2PC with a timeout of 10 s. Kafka 4.4.0's client
 * cannot ask for two-phase commit (its InitProducerId never sets Enable2Pc, and version 6 of
 * the request is unstable), so txn2pc-broker.sh gives tpc-writer's coordinator record the
 * timeout a 2PC producer gets (TxnTwoPhaseState) while the broker is down.
 * Usage: TxnLeftOpen BOOTSTRAP TOPIC_2PC TOPIC_PLAIN COUNT
 */
public final class TxnLeftOpen {
    private static KafkaProducer<byte[], byte[]> open(String bootstrap, String id, int timeoutMs) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("transactional.id", id);
        p.put("transaction.timeout.ms", Integer.toString(timeoutMs));
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        producer.initTransactions();
        producer.beginTransaction();
        return producer;
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String topic, int count) {
        for (int i = 0; i < count; i++)
            producer.send(new ProducerRecord<>(topic, 0, ("k" + i).getBytes(), (topic + " record " + i).getBytes()));
        producer.flush();
    }

    public static void main(String[] args) throws Exception {
        int count = Integer.parseInt(args[3]);
        send(open(args[0], "plain-writer", 2000), args[2], count);
        Thread.sleep(4000);
        send(open(args[0], "tpc-writer", 10000), args[1], count);
        // Neither commits nor aborts: the process dies as a crash would (close() could end them).
        Runtime.getRuntime().halt(0);
    }
}
