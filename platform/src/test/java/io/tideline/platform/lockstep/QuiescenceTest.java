package io.tideline.platform.lockstep;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.testkit.KafkaBroker;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The lockstep's settle rule on a real broker: a group that has consumed everything is settled,
 * but not while one of its transactions is still in flight — the output of such a transaction is
 * not readable yet, so a twin that advanced then would miss the cascade it causes (the parity
 * failure of CI on 815df0e).
 */
class QuiescenceTest {

  private static final Duration BOUND = Duration.ofSeconds(60);

  @Test
  void shouldNotCallAGroupSettledWhileOneOfItsTransactionsIsInFlight() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start()) {
      broker.createTopics("in", "out");
      String bootstrap = broker.bootstrapServers();
      try (KafkaConsumer<String, String> member = member(bootstrap, "svc");
          KafkaProducer<String, String> plain = producer(bootstrap, null);
          KafkaProducer<String, String> service = producer(bootstrap, "svc-process-1-0");
          Quiescence quiet = new Quiescence(bootstrap)) {
        consumeOneRecord(plain, member);
        assertThat(quiet.await(List.of("svc"), BOUND, 50, System::currentTimeMillis))
            .as("everything consumed and committed").isTrue();

        service.initTransactions();
        service.beginTransaction();
        service.send(new ProducerRecord<>("out", "k", "answer")).get();
        assertThat(quiet.settled(List.of("svc")))
            .as("the group's offsets are all committed, but its transaction is open").isFalse();

        service.commitTransaction();
        assertThat(quiet.await(List.of("svc"), BOUND, 50, System::currentTimeMillis))
            .as("settled again once the transaction is complete").isTrue();
        assertThat(quiet.ends(List.of(new org.apache.kafka.common.TopicPartition("out", 0))))
            .as("and its output is readable").containsValue(2L); // the record and its marker
      }
    }
  }

  @Test
  void shouldIgnoreTransactionsOfOtherGroups() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start()) {
      broker.createTopics("in", "out");
      String bootstrap = broker.bootstrapServers();
      try (KafkaConsumer<String, String> member = member(bootstrap, "svc");
          KafkaProducer<String, String> plain = producer(bootstrap, null);
          KafkaProducer<String, String> other = producer(bootstrap, "svcx-process-1-0");
          Quiescence quiet = new Quiescence(bootstrap)) {
        consumeOneRecord(plain, member);
        other.initTransactions();
        other.beginTransaction();
        other.send(new ProducerRecord<>("out", "k", "answer")).get();
        assertThat(quiet.await(List.of("svc"), BOUND, 50, System::currentTimeMillis))
            .as("an open transaction of group svcx does not hold group svc").isTrue();
        other.abortTransaction();
      }
    }
  }

  private static KafkaConsumer<String, String> member(String bootstrap, String group) {
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(),
        new StringDeserializer());
    consumer.subscribe(List.of("in"));
    return consumer;
  }

  private static KafkaProducer<String, String> producer(String bootstrap, String txId) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    if (txId != null) {
      p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txId);
    }
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }

  /** One record on "in", consumed by group "svc" and its offset committed. */
  private static void consumeOneRecord(KafkaProducer<String, String> producer,
      KafkaConsumer<String, String> member) throws Exception {
    producer.send(new ProducerRecord<>("in", "k", "v")).get();
    int seen = 0;
    long until = System.currentTimeMillis() + BOUND.toMillis();
    while (seen < 1 && System.currentTimeMillis() < until) {
      seen += member.poll(Duration.ofMillis(200)).count();
    }
    assertThat(seen).as("the record consumed within " + BOUND).isEqualTo(1);
    member.commitSync();
  }
}
