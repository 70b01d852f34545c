package io.tideline.notifier.app;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.common.annotation.Identifier;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.DeadLetter;
import io.tideline.events.DeliveryStatus;
import io.tideline.events.NoticeDelivery;
import io.tideline.events.NotifyPreference;
import io.tideline.notifier.channel.EmailSender;
import io.tideline.notifier.channel.SendFailure;
import io.tideline.notifier.channel.Sender;
import io.tideline.notifier.channel.SlackWebhookSender;
import io.tideline.notifier.compose.Decisions;
import io.tideline.notifier.delivery.Channel;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.security.Provenance;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfraResource;
import io.quarkus.mailer.Mailer;
import jakarta.inject.Inject;
import jakarta.mail.internet.MimeMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The notifier under the faults of issue #16 (findings 2 and 8), on a real broker and registry,
 * a real SMTP server (GreenMail) and a real HTTP sink (WireMock): hostile directory records, the
 * directory endpoint's answers, an honest {@code /q/health}, and exactly-once notices across an
 * engine that stops dead between a send and its record.
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = ChannelServersResource.class, restrictToAnnotatedClass = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NotifierFaultsTest {

  @Inject NotifierService service;
  @Inject NotifierConfig config;
  @Inject AvroSerdes serdes;
  @Inject NoticeRenderer renderer;
  @Inject DeadLetters deadLetters;
  @Inject NotifierMeters meters;
  @Inject Mailer mailer;
  @Inject @Identifier("default-kafka-broker") Map<String, Object> kafka;

  @Test
  @Order(1)
  void shouldDeadLetterAClockTickOnTheDirectoryAndStayHealthyAcrossARestart() {
    awaitRestored();
    // 1. A valid Avro frame of the wrong type on notify.directory, then a valid entry.
    send("notify.directory", "mallory", ClockTick.newBuilder().setCluster("c1")
        .setTime(Instant.parse("2026-11-10T00:00:00Z")).setSequence(1).setIntervalMillis(1000)
        .setSource(ClockSource.WALL).build());
    send("notify.directory", "nina", entry("nina", List.of("SLACK"), hook("nina")));
    await("nina's entry read", () -> service.engine().directory().hasEntry("nina"));

    // 2. The frame is dead-lettered with the reason; the engine runs and says so.
    List<DeadLetter> letters = letters("notify.directory.dlq", 1);
    assertThat(letters).hasSize(1);
    assertThat(letters.get(0).getErrorClass()).isEqualTo("DESERIALIZATION");
    assertThat(letters.get(0).getError()).contains("expected a NotifyPreference")
        .contains("ClockTick");
    given().get("/q/health").then().statusCode(200).body("status", equalTo("UP"));

    // 3. A restart reads the frame again: it is neither fatal nor dead-lettered twice.
    service.restart("notifier-svc");
    awaitRestored();
    assertThat(service.engine().directory().hasEntry("nina")).isTrue();
    given().get("/q/health").then().statusCode(200).body("status", equalTo("UP"));
    assertThat(letters("notify.directory.dlq", 2)).hasSize(1);
  }

  @Test
  @Order(2)
  void shouldRefuseOnlyTheEntryWithQuietHoursAt25Colon99AndDeliverTheOthers() {
    Instant t = Instant.parse("2026-11-11T09:00:00Z");
    NotifyPreference bad = entry("olga", List.of("SLACK"), hook("olga"));
    bad.setQuietStart("25:99");
    bad.setQuietEnd("07:00");
    send("notify.directory", "olga", bad);
    send("notify.directory", "pete", entry("pete", List.of("SLACK"), hook("pete")));
    await("pete's entry read", () -> service.engine().directory().hasEntry("pete"));
    preempted(Decisions.preempt("dec-pete", t,
        List.of(Decisions.victim("train-pete-1", "pete"))));

    await("pete told", () -> Channels.slackDelivered("pete").size() == 1);
    assertThat(service.engine().directory().hasEntry("olga")).isFalse();
    assertThat(letters("notify.directory.dlq", 2)).extracting(DeadLetter::getError)
        .anySatisfy(e -> assertThat(e).contains("quietStart '25:99'"));
  }

  @Test
  @Order(2)
  void shouldDeadLetterADirectoryRecordWhoseWebhookIsLoopbackAndKeepTheOthers() {
    // Someone writes notify.directory directly (no REST): the notifier must not post to itself.
    send("notify.directory", "ruth", entry("ruth", List.of("SLACK"),
        "https://127.0.0.2:8186/quota-requests"));
    send("notify.directory", "uma", entry("uma", List.of("SLACK"), hook("uma")));
    await("uma's entry read", () -> service.engine().directory().hasEntry("uma"));
    assertThat(service.engine().directory().hasEntry("ruth")).isFalse();
    assertThat(letters("notify.directory.dlq", 2)).extracting(DeadLetter::getError)
        .anySatisfy(e -> assertThat(e).contains("'127.0.0.2' is a loopback address"));
  }

  @Test
  @Order(3)
  void shouldAnswer400NotA500ForChannelFaxZoneMarsQuietHours25Colon99AndAFileWebhook() {
    given().contentType("application/json")
        .body("{\"channels\":[\"FAX\"],\"zoneId\":\"UTC\"}").put("/directory/quinn")
        .then().statusCode(400).body("errors[0]", org.hamcrest.Matchers.containsString("FAX"));
    given().contentType("application/json")
        .body("{\"channels\":[\"EMAIL\"],\"email\":\"q@example.com\",\"zoneId\":\"Mars/Olympus\"}")
        .put("/directory/quinn").then().statusCode(400)
        .body("errors[0]", org.hamcrest.Matchers.containsString("Mars/Olympus"));
    given().contentType("application/json")
        .body("{\"channels\":[\"SLACK\"],\"slackWebhookUrl\":\"file:///etc/passwd\"}")
        .put("/directory/quinn").then().statusCode(400)
        .body("errors[0]", org.hamcrest.Matchers.containsString("scheme 'file' is not allowed"));
    given().contentType("application/json")
        .body("{\"quietStart\":\"25:99\",\"quietEnd\":\"07:00\"}").put("/directory/quinn")
        .then().statusCode(400).body("errors", hasItem(
            "quietStart '25:99' is not a local time HH:mm (00:00–23:59)"));
    given().contentType("application/json")
        .body("{\"channels\":[\"SLACK\"],\"slackWebhookUrl\":\"" + hook("quinn") + "\","
            + "\"zoneId\":\"Europe/Paris\",\"quietStart\":\"22:00\",\"quietEnd\":\"07:00\"}")
        .put("/directory/quinn").then().statusCode(202);
    await("quinn's entry read", () -> service.engine().directory().hasEntry("quinn"));
  }

  @Test
  @Order(4)
  void shouldDeliverExactlyOnceAcrossAnEngineStoppedDeadBetweenSendAndRecord() throws Exception {
    Instant t = Instant.parse("2026-11-12T09:00:00Z");
    send("notify.directory", "rosa", entry("rosa", List.of("SLACK"), hook("rosa")));
    NotifyPreference sam = entry("sam", List.of("EMAIL"), null);
    sam.setEmail("sam@example.com");
    send("notify.directory", "sam", sam);
    await("entries read", () -> service.engine().directory().hasEntry("rosa")
        && service.engine().directory().hasEntry("sam"));
    service.stop();

    // 1. Engine A posts rosa's notice to the webhook and stops dead before recording it.
    NotifierEngine a = engine(Channel.SLACK, "rosa");
    preempted(Decisions.preempt("dec-rosa", t,
        List.of(Decisions.victim("train-rosa-1", "rosa"))));
    await("A posted and died", () -> Channels.slackDelivered("rosa").size() == 1
        && !a.health(Duration.ofMinutes(1)).alive());
    // 2. Engine B re-sends it (same Idempotency-Key), then mails sam and stops dead likewise.
    NotifierEngine b = engine(Channel.EMAIL, "sam");
    preempted(Decisions.preempt("dec-sam", t.plusSeconds(1),
        List.of(Decisions.victim("train-sam-1", "sam"))));
    await("B re-posted, mailed and died", () -> Channels.slackDelivered("rosa").size() == 2
        && Channels.mails("sam@example.com").size() == 1 && !b.health(Duration.ofMinutes(1)).alive());
    // 3. The service's engine re-sends sam's mail with the same Message-ID.
    service.restart("notifier-svc");
    await("mail re-sent", () -> Channels.mails("sam@example.com").size() == 2);

    List<ServeEvent> posts = ChannelServersResource.slack.getAllServeEvents().stream()
        .filter(e -> e.getRequest().getUrl().equals("/hooks/rosa")).toList();
    assertThat(posts).hasSize(2);
    assertThat(posts).extracting(e -> e.getRequest().getHeader("Idempotency-Key")).doesNotContainNull()
        .containsOnly(posts.get(0).getRequest().getHeader("Idempotency-Key"));
    List<MimeMessage> mails = Channels.mails("sam@example.com");
    assertThat(mails.get(0).getMessageID()).isNotBlank().isEqualTo(mails.get(1).getMessageID());
    assertThat(mails.get(0).getMessageID()).isEqualTo(EmailSender.messageId(
        mails.get(0).getHeader("X-Idempotency-Key")[0]));
    // 4. The record tells the truth: each was SENDING, then DELIVERED as a re-send with its key.
    Map<String, NoticeDelivery> latest = deliveries();
    NoticeDelivery rosa = latest.get("dec-rosa/train-rosa-1/PREEMPTED|SLACK");
    assertThat(rosa.getStatus()).isEqualTo(DeliveryStatus.DELIVERED);
    assertThat(rosa.getError()).contains("re-sent after a restart");
    assertThat(rosa.getIdempotencyKey())
        .isEqualTo(posts.get(0).getRequest().getHeader("Idempotency-Key"));
    NoticeDelivery samMail = latest.get("dec-sam/train-sam-1/PREEMPTED|EMAIL");
    assertThat(samMail.getStatus()).isEqualTo(DeliveryStatus.DELIVERED);
    assertThat(samMail.getIdempotencyKey())
        .isEqualTo(mails.get(0).getHeader("X-Idempotency-Key")[0]);
    // 5. A further restart sends nothing again.
    service.restart("notifier-svc");
    awaitRestored();
    preempted(Decisions.preempt("dec-rosa-2", t.plusSeconds(5),
        List.of(Decisions.victim("train-rosa-2", "rosa"))));
    await("rosa's next notice", () -> Channels.slackDelivered("rosa").size() == 3);
    assertThat(Channels.mails("sam@example.com")).hasSize(2);
  }

  @Test
  @Order(5)
  void shouldReportDownWhileTheEngineIsStoppedAndUpAgainOnceItRuns() {
    service.stop();
    given().get("/q/health/live").then().statusCode(503)
        .body("checks.find { it.name == 'notifier-engine' }.status", equalTo("DOWN"));
    service.restart("notifier-svc");
    awaitRestored();
    given().get("/q/health").then().statusCode(200).body("status", equalTo("UP"));
  }

  // ---- helpers ------------------------------------------------------------------------------

  /** The error a sender throws to stop its engine dead right after a real send. */
  static final class StoppedDead extends Error {
    StoppedDead() {
      super("engine stopped dead between the send and its record (test)");
    }
  }

  /**
   * An engine on the real channels that stops dead (its worker thread dies, nothing recorded)
   * right after the first message to {@code user} on {@code channel} has gone out.
   */
  private NotifierEngine engine(Channel channel, String user) {
    Map<Channel, Sender> senders = new EnumMap<>(Channel.class);
    Sender slack = new SlackWebhookSender(Duration.ofSeconds(5));
    Sender email = new EmailSender(mailer);
    for (Channel ch : Channel.values()) {
      Sender real = ch == Channel.SLACK ? slack : email;
      senders.put(ch, (route, message, key) -> {
        real.send(route, message, key);
        if (ch == channel && route.userId().equals(user)) {
          throw new StoppedDead();
        }
      });
    }
    NotifierEngine e = new NotifierEngine(config, "notifier-svc", kafka,
        serdes.valueSerdeConfig(), new Directory(config), renderer, senders, deadLetters,
        meters, service.bounds());
    e.start();
    await("engine restored", e::restored);
    return e;
  }

  private static NotifyPreference entry(String user, List<String> channels, String hook) {
    return NotifyPreference.newBuilder().setUserId(user).setChannels(channels)
        .setSlackWebhookUrl(hook).setLocale("en").setZoneId("UTC").setDigest(false)
        .setUpdatedAt(Instant.now()).build();
  }

  private void awaitRestored() {
    await("engine restored", () -> service.engine() != null && service.engine().restored());
  }

  private static String hook(String name) {
    return "http://127.0.0.1:" + ChannelServersResource.slack.port() + "/hooks/" + name;
  }

  private static Map<String, Object> serde() {
    return AvroSerdes.serdeConfig(TidelineInfraResource.infra().registry().url(), true);
  }

  private static void send(String topic, String key, Object value) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        TidelineInfraResource.infra().broker().bootstrapServers());
    try (var producer = new KafkaProducer<String, Object>(p, new StringSerializer(),
        AvroSerdes.valueSerializer(serde()))) {
      producer.send(new ProducerRecord<>(topic, null, key, value,
          Provenance.stampOf(Provenance.ownerOf(topic)))).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Publishes {@code d} and the eviction placement applies for each victim: notices follow it. */
  private static void preempted(io.tideline.events.PreemptionDecision d) {
    send("preemption.decisions", "c1", d);
    for (var e : Decisions.applied(d, d.getDecidedAt())) {
      send("evictions", e.getJobId(), e);
    }
  }

  private static KafkaConsumer<String, Object> reader() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        TidelineInfraResource.infra().broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("reader"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return new KafkaConsumer<>(p, new StringDeserializer(), AvroSerdes.valueDeserializer(serde()));
  }

  /** Every record of {@code topic} up to its end. */
  private static List<Object> all(String topic) {
    List<Object> out = new ArrayList<>();
    try (var consumer = reader()) {
      List<TopicPartition> parts = consumer.partitionsFor(topic).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> out.add(r.value()));
      }
    }
    return out;
  }

  /** The dead letters on {@code topic}, waiting up to a few seconds for {@code atLeast}. */
  private static List<DeadLetter> letters(String topic, int atLeast) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    List<DeadLetter> out;
    do {
      out = all(topic).stream().map(DeadLetter.class::cast).toList();
    } while (out.size() < atLeast && System.nanoTime() < deadline);
    return out;
  }

  private static Map<String, NoticeDelivery> deliveries() {
    Map<String, NoticeDelivery> latest = new HashMap<>();
    for (Object o : all("notices.deliveries")) {
      NoticeDelivery d = (NoticeDelivery) o;
      latest.put(d.getNoticeId() + "|" + d.getChannel(), d);
    }
    return latest;
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("gave up waiting for: " + what);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
