// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.util.Properties;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One committed transaction of COUNT records to partition 0 of TOPIC, by a Java producer with
 * transactional.id TXN_ID and a transaction.timeout.ms of 1 s (so that kseg's verdict on a
 * transaction left open needs no waiting). kcat writes no transactions; doctor-broker.sh makes
 * a hanging one from this by cutting its commit marker.
 * Usage: TxnOnce BOOTSTRAP TOPIC TXN_ID COUNT
 */
public final class TxnOnce {
    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", args[0]);
        p.put("transactional.id", args[2]);
        p.put("transaction.timeout.ms", "1000");
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < Integer.parseInt(args[3]); i++)
                producer.send(new ProducerRecord<>(args[1], 0, ("t" + i).getBytes(), ("txn record " + i).getBytes()));
            producer.commitTransaction();
        }
    }
}
