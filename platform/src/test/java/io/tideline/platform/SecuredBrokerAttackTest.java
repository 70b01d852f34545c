package io.tideline.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tideline.events.ClockTick;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.NodeInventory;
import io.tideline.events.NotifyPreference;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.QuotaConfigDocument;
import io.tideline.platform.security.AclPlan;
import io.tideline.platform.security.Identity;
import io.tideline.platform.security.KafkaAcls;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.SecureKafkaBroker;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue #18's attacks, on a real secured broker (SCRAM over TLS, StandardAuthorizer, deny by
 * default) with the ACLs generated from the catalogue: each forged write, made with another
 * service's, the submitter's or no credential, is refused by the broker and leaves the topic as it
 * was; the topic's owner writes it (so each refusal is the ACL's doing, not a broken setup).
 */
class SecuredBrokerAttackTest {

  static SecureKafkaBroker broker;

  @BeforeAll
  static void start() {
    broker = SecureKafkaBroker.start(Arrays.stream(Identity.values()).map(Identity::user).toList());
    broker.createTopics(TopicCatalogue.all().stream()
        .map(t -> new NewTopic(t.name(), 1, (short) 1).configs(t.configs())).toList());
    broker.applyAcls(KafkaAcls.bindings(AclPlan.fromCatalogue()));
  }

  @AfterAll
  static void stop() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void shouldRefuseAForgedPreemptionDecisionFromPlacementOrASubmitter() {
    byte[] forged = wire(PreemptionDecision.getClassSchema(), 1);
    for (Identity attacker : List.of(Identity.PLACEMENT, Identity.SUBMITTER, Identity.NOTIFIER)) {
      assertRefused(attacker, TopicCatalogue.PREEMPTION_DECISIONS, "cluster-a", forged);
    }
    assertWritable(Identity.PREEMPTION, TopicCatalogue.PREEMPTION_DECISIONS, forged);
  }

  @Test
  void shouldRefuseAForgedQuotaConfigFromQuotaItselfOrASubmitter() {
    byte[] forged = wire(QuotaConfigDocument.getClassSchema(), 2);
    for (Identity attacker : List.of(Identity.SUBMITTER, Identity.QUOTA, Identity.NOTIFIER)) {
      assertRefused(attacker, "quota.config", "cluster-a", forged);
    }
    assertWritable(Identity.OPERATOR, "quota.config", forged);
  }

  @Test
  void shouldRefuseAForgedCompletedLifecycleFromAnyoneButTheExecutor() {
    byte[] forged = wire(JobLifecycle.getClassSchema(), 3);
    for (Identity attacker : List.of(Identity.SUBMITTER, Identity.PLACEMENT, Identity.OPERATOR)) {
      assertRefused(attacker, TopicCatalogue.JOBS_LIFECYCLE, "job-of-someone-else", forged);
    }
    assertWritable(Identity.EXECUTOR, TopicCatalogue.JOBS_LIFECYCLE, forged);
  }

  @Test
  void shouldRefuseAPhantomNodeFromAnyoneButTelemetry() {
    byte[] forged = wire(NodeInventory.getClassSchema(), 4);
    for (Identity attacker : List.of(Identity.SUBMITTER, Identity.FORECASTER, Identity.EXECUTOR)) {
      assertRefused(attacker, TopicCatalogue.CLUSTER_INVENTORY, "phantom-100000-gpus", forged);
    }
    assertWritable(Identity.TELEMETRY, TopicCatalogue.CLUSTER_INVENTORY, forged);
  }

  @Test
  void shouldRefuseADirectoryEntryWrittenAroundTheNotifiersChecks() {
    byte[] forged = wire(NotifyPreference.getClassSchema(), 5);
    for (Identity attacker : List.of(Identity.SUBMITTER, Identity.OPERATOR, Identity.PLACEMENT)) {
      assertRefused(attacker, "notify.directory", "carol", forged);
    }
    assertWritable(Identity.NOTIFIER, "notify.directory", forged);
  }

  @Test
  void shouldLetASubmitterSubmitButNotReadNoticesNorWriteQuotaConfig() throws Exception {
    assertWritable(Identity.SUBMITTER, TopicCatalogue.JOBS_SUBMITTED,
        wire(JobSubmitted.getClassSchema(), 6));
    assertRefused(Identity.SUBMITTER, "quota.config", "cluster-a",
        wire(QuotaConfigDocument.getClassSchema(), 7));
    // a record the notifier wrote, so refusing to read it is not "nothing to read"
    assertWritable(Identity.NOTIFIER, TopicCatalogue.NOTICES, new byte[] {0, 0, 0, 0, 1});
    Properties c = broker.clientProperties(Identity.SUBMITTER.user());
    c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
    try (var consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      TopicPartition p = new TopicPartition(TopicCatalogue.NOTICES, 0);
      consumer.assign(List.of(p));
      consumer.seekToBeginning(List.of(p));
      assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(20)))
          .isInstanceOf(TopicAuthorizationException.class)
          .hasMessageContaining(TopicCatalogue.NOTICES);
    }
    // and the notifier, its owner, reads it
    try (var consumer = new KafkaConsumer<>(broker.clientProperties(Identity.NOTIFIER.user()),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition p = new TopicPartition(TopicCatalogue.NOTICES, 0);
      consumer.assign(List.of(p));
      consumer.seekToBeginning(List.of(p));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      int read = 0;
      while (read == 0 && System.nanoTime() < deadline) {
        read += consumer.poll(Duration.ofMillis(500)).count();
      }
      assertThat(read).isPositive();
    }
  }

  @Test
  void shouldFailABadCredentialClearlyAndLetNothingThrough() {
    long before = endOffset(TopicCatalogue.PREEMPTION_DECISIONS);
    Properties p = broker.clientPropertiesWithPassword(Identity.PREEMPTION.user(), "guessed");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>(
          TopicCatalogue.PREEMPTION_DECISIONS, "cluster-a",
          wire(PreemptionDecision.getClassSchema(), 8))).get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(SaslAuthenticationException.class)
          .hasMessageContaining("invalid credentials");
    }
    assertThat(endOffset(TopicCatalogue.PREEMPTION_DECISIONS)).isEqualTo(before);
  }

  @Test
  void shouldNotLetAClientWithoutCredentialsWriteAtAll() {
    long before = endOffset(TopicCatalogue.CLUSTER_CLOCK);
    for (Properties anonymous : List.of(broker.plaintextProperties(),
        broker.anonymousTlsProperties())) {
      anonymous.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 8_000);
      try (var producer = new KafkaProducer<>(anonymous, new StringSerializer(),
          new ByteArraySerializer())) {
        assertThatThrownBy(() -> producer.send(new ProducerRecord<>(TopicCatalogue.CLUSTER_CLOCK,
            "cluster-a", wire(ClockTick.getClassSchema(), 9))).get(30, TimeUnit.SECONDS))
            .as("%s", anonymous.get("security.protocol"))
            .isInstanceOfAny(ExecutionException.class,
                org.apache.kafka.common.errors.TimeoutException.class);
      }
    }
    assertThat(endOffset(TopicCatalogue.CLUSTER_CLOCK)).isEqualTo(before);
  }

  // --- helpers ---------------------------------------------------------------------------------

  private static void assertRefused(Identity attacker, String topic, String key, byte[] value) {
    long before = endOffset(topic);
    Properties p = broker.clientProperties(attacker.user());
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>(topic, key, value))
          .get(30, TimeUnit.SECONDS))
          .as("%s writes %s", attacker, topic)
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(TopicAuthorizationException.class)
          .hasMessageContaining(topic);
    }
    assertThat(endOffset(topic)).as("%s unchanged after %s's attempt", topic, attacker)
        .isEqualTo(before);
  }

  private static void assertWritable(Identity owner, String topic, byte[] value) {
    long before = endOffset(topic);
    try (var producer = new KafkaProducer<>(broker.clientProperties(owner.user()),
        new StringSerializer(), new ByteArraySerializer())) {
      RecordMetadata m = producer.send(new ProducerRecord<>(topic, "k", value))
          .get(60, TimeUnit.SECONDS);
      assertThat(m.offset()).isGreaterThanOrEqualTo(before);
    } catch (Exception e) {
      throw new AssertionError(owner + " could not write its own " + topic + ": " + e, e);
    }
    assertThat(endOffset(topic)).isGreaterThan(before);
  }

  private static long endOffset(String topic) {
    try (Admin admin = broker.admin()) {
      TopicPartition p = new TopicPartition(topic, 0);
      return admin.listOffsets(Map.of(p, OffsetSpec.latest())).partitionResult(p)
          .get(30, TimeUnit.SECONDS).offset();
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the end of " + topic + ": " + e, e);
    }
  }

  /** A well-formed record of the contract in the Confluent wire format (magic 0, a schema id). */
  private static byte[] wire(Schema schema, long seed) {
    GenericRecord r = SampleRecords.of(schema, seed);
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(0);
      out.write(ByteBuffer.allocate(4).putInt(1).array());
      BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
      new GenericDatumWriter<GenericRecord>(schema).write(r, e);
      e.flush();
      return out.toByteArray();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
