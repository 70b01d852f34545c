package io.tideline.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.admission.SubmissionLimits;
import io.tideline.events.JobSubmitted;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.intake.JobIntake;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.platform.serde.ContractSubjects;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.ConfluentPythonClient;
import org.apache.avro.Schema;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfra;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Our events on the wire, against a real broker and a real Apicurio registry: the bytes are the
 * Confluent wire format, and the schema id in them is the one the registry's Confluent-compatible
 * API gives for the subject; every contract is registered self-contained (ADR 0013), and
 * Confluent's own Python client — which knows nothing of Apicurio — produces a job with the
 * published schema and decodes every topic (issue #16 finding 7).
 */
class ConfluentWireFormatTest {

  static TidelineInfra infra;
  static Map<String, Object> serde;

  @BeforeAll
  static void start() {
    infra = TidelineInfra.start();
    serde = AvroSerdes.serdeConfig(infra.registry().url(), true);
  }

  @AfterAll
  static void stop() {
    infra.close();
  }

  @Test
  void shouldWriteMagicByteZeroAndTheCcompatSchemaId() {
    String topic = KafkaBroker.unique("jobs.submitted");
    infra.broker().createTopics(topic);
    JobSubmitted job = JobSubmissions.training("job-wire-1")
        .at(Instant.parse("2026-11-02T09:00:00Z")).build();

    produce(topic, job.getJobId(), job);
    byte[] bytes = consumeOne(topic).value();

    assertThat(bytes[0]).as("magic byte").isZero();
    int idInRecord = ByteBuffer.wrap(bytes, 1, 4).getInt();
    String latest = infra.registry().get(
        "/apis/ccompat/v7/subjects/" + topic + "-value/versions/latest");
    Matcher m = Pattern.compile("\"id\"\\s*:\\s*(\\d+)").matcher(latest);
    assertThat(m.find()).as("ccompat answer has an id: %s", latest).isTrue();
    assertThat(idInRecord).isEqualTo(Integer.parseInt(m.group(1)));

    JobSubmitted back = AvroSerdes.<JobSubmitted>valueDeserializer(serde).deserialize(topic, bytes);
    assertThat(back).isEqualTo(job);
  }

  @Test
  void shouldAcceptAWellFormedSubmissionThroughIntake() {
    String topic = KafkaBroker.unique("jobs.submitted");
    infra.broker().createTopics(topic);
    JobSubmitted job = JobSubmissions.training("job-ok").gpus(16).gang(16, 2).build();
    produce(topic, job.getJobId(), job);

    JobIntake.Outcome out = intake().decode(topic, consumeOne(topic).value());

    assertThat(out).isInstanceOfSatisfying(JobIntake.Accepted.class, a -> {
      assertThat(a.request().gpuCount()).isEqualTo(16);
      assertThat(a.request().nodes()).isEqualTo(2);
    });
  }

  @Test
  void shouldRefuseBytesThatAreNotOurAvro() {
    JobIntake.Outcome out = intake().decode("jobs.submitted", "{\"jobId\":\"x\"}".getBytes());
    assertThat(out).isInstanceOfSatisfying(JobIntake.Refused.class, r -> {
      assertThat(r.errorClass()).isEqualTo(DeadLetters.DESERIALIZATION);
      assertThat(r.reason()).contains("not a JobSubmitted");
    });
  }

  @Test
  void shouldRefuseValidAvroWithImpossibleGpus() {
    String topic = KafkaBroker.unique("jobs.submitted");
    infra.broker().createTopics(topic);
    JobSubmitted job = JobSubmissions.training("job-zero").gpus(8).build();
    job.getResources().setGpuCount(0);
    produce(topic, job.getJobId(), job);

    JobIntake.Outcome out = intake().decode(topic, consumeOne(topic).value());

    assertThat(out).isInstanceOfSatisfying(JobIntake.Refused.class, r -> {
      assertThat(r.errorClass()).isEqualTo(DeadLetters.VALIDATION);
      assertThat(r.reason()).contains("job-zero").contains("resources.gpuCount");
    });
  }

  @Test
  void shouldRegisterEveryContractSelfContainedUnderItsTopicsValueSubject() throws Exception {
    String suffix = KafkaBroker.unique("");
    List<ContractSubjects.Subject> subjects = ContractSubjects.all().stream()
        .map(c -> new ContractSubjects.Subject(c.topic() + suffix, c.topic() + suffix + "-value",
            c.schema())).toList();

    List<ContractSubjects.Registered> ids = ContractSubjects.register(infra.registry().url(),
        subjects);
    // idempotent: registering again gives the same ids
    assertThat(ContractSubjects.register(infra.registry().url(), subjects)).isEqualTo(ids);

    ObjectMapper json = new ObjectMapper();
    for (ContractSubjects.Subject sub : subjects) {
      JsonNode latest = json.readTree(infra.registry().get(
          "/apis/ccompat/v7/subjects/" + sub.subject() + "/versions/latest"));
      assertThat(latest.path("references").isMissingNode() || latest.path("references").isEmpty())
          .as("%s has no references", sub.subject()).isTrue();
      // self-contained: parses alone, with nothing else known
      Schema parsed = new Schema.Parser().parse(latest.get("schema").asText());
      assertThat(parsed).isEqualTo(sub.schema());
    }
    // our serde finds the registered version: its records carry the registered id
    String jobs = TopicCatalogue.JOBS_SUBMITTED + suffix;
    infra.broker().createTopics(jobs);
    produce(jobs, "job-registered", JobSubmissions.training("job-registered").build());
    int written = ByteBuffer.wrap(consumeOne(jobs).value(), 1, 4).getInt();
    assertThat(written).isEqualTo(ids.stream()
        .filter(r -> r.subject().equals(jobs + "-value")).findFirst().orElseThrow().id());
  }

  @Test
  void shouldLetConfluentsOwnClientProduceAJobWithThePublishedSchemaAndDecodeEveryTopic()
      throws Exception {
    ConfluentPythonClient confluent = ConfluentPythonClient.install();
    String suffix = KafkaBroker.unique("");
    // 1. every catalogued topic, registered as `tideline schemas register` does, one record each
    List<ContractSubjects.Subject> subjects = ContractSubjects.all().stream()
        .map(c -> new ContractSubjects.Subject(c.topic() + suffix, c.topic() + suffix + "-value",
            c.schema())).toList();
    ContractSubjects.register(infra.registry().url(), subjects);
    infra.broker().createTopics(subjects.stream().map(ContractSubjects.Subject::topic)
        .toArray(String[]::new));
    // auto-register finds the version `schemas register` published (same content, same id)
    Map<String, Object> generic = new java.util.HashMap<>(
        AvroSerdes.serdeConfig(infra.registry().url(), true));
    generic.put(io.apicurio.registry.serde.avro.AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, false);
    generic.remove(io.apicurio.registry.serde.avro.AvroSerdeConfig.AVRO_DATUM_PROVIDER);
    Map<String, byte[]> bodies = new java.util.HashMap<>();
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    try (var producer = new KafkaProducer<String, byte[]>(p, new StringSerializer(),
        new org.apache.kafka.common.serialization.ByteArraySerializer())) {
      org.apache.kafka.common.serialization.Serializer<Object> avro =
          AvroSerdes.valueSerializer(generic);
      long seed = 16;
      for (ContractSubjects.Subject sub : subjects) {
        Object record = SampleRecords.of(sub.schema(), seed++);
        byte[] value = avro.serialize(sub.topic(), record);
        bodies.put(sub.topic(), java.util.Arrays.copyOfRange(value, 5, value.length));
        producer.send(new ProducerRecord<>(sub.topic(), "k", value)).get();
      }
    }

    // 2. Confluent's deserializer decodes each; re-encoded with its writer schema, the bytes are
    //    ours, exactly
    List<JsonNode> decoded = confluent.decode(infra.broker().bootstrapServers(),
        infra.registry().url(), subjects.stream().map(ContractSubjects.Subject::topic).toList());
    assertThat(decoded).hasSize(subjects.size());
    for (JsonNode d : decoded) {
      String topic = d.get("topic").asText();
      assertThat(java.util.HexFormat.of().parseHex(d.get("reencoded").asText()))
          .as("%s decoded by confluent-kafka and re-encoded", topic)
          .isEqualTo(bodies.get(topic));
    }

    // 3. it produces a job with the published schema (registering nothing); we accept it
    String jobs = TopicCatalogue.JOBS_SUBMITTED + suffix;
    int versionsBefore = versions(jobs + "-value");
    confluent.produceJob(infra.broker().bootstrapServers(), infra.registry().url(), jobs,
        "py-job-1");
    ConsumerRecord<byte[], byte[]> fromPython = consumeKey(jobs, "py-job-1");
    JobIntake.Outcome out = intake().decode(jobs, fromPython.key(), fromPython.value(),
        fromPython.timestamp());
    assertThat(out).isInstanceOfSatisfying(JobIntake.Accepted.class, a -> {
      assertThat(a.event().getJobId()).isEqualTo("py-job-1");
      assertThat(a.request().gpuCount()).isEqualTo(8);
    });
    assertThat(versions(jobs + "-value")).as("the client registered no version")
        .isEqualTo(versionsBefore);
  }

  private static int versions(String subject) throws Exception {
    return new ObjectMapper().readTree(infra.registry().get(
        "/apis/ccompat/v7/subjects/" + subject + "/versions")).size();
  }

  private ConsumerRecord<byte[], byte[]> consumeKey(String topic, String key) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("wire-test"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (var consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline) {
        for (var r : consumer.poll(Duration.ofMillis(200))) {
          if (r.key() != null && key.equals(new String(r.key()))) {
            return r;
          }
        }
      }
    }
    throw new AssertionError("no record " + key + " on " + topic + " within 30 s");
  }

  private JobIntake intake() {
    return new JobIntake(AvroSerdes.valueDeserializer(serde), SubmissionLimits.DEFAULTS);
  }

  private void produce(String topic, String key, Object value) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    try (var producer = new KafkaProducer<String, Object>(p, new StringSerializer(),
        AvroSerdes.valueSerializer(serde))) {
      producer.send(new ProducerRecord<>(topic, key, value)).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private ConsumerRecord<byte[], byte[]> consumeOne(String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("wire-test"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (var consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline) {
        for (var r : consumer.poll(Duration.ofMillis(200))) {
          return r;
        }
      }
    }
    throw new AssertionError("no record on " + topic + " within 30 s");
  }
}
