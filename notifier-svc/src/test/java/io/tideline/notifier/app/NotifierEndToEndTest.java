package io.tideline.notifier.app;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.DeadLetter;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobLifecycle;
import io.tideline.events.Lane;
import io.tideline.events.LifecycleType;
import io.tideline.events.Notice;
import io.tideline.events.NotifyPreference;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.QueuePosition;
import io.tideline.events.SlotClass;
import io.tideline.events.SlotForecast;
import io.tideline.events.Victim;
import io.tideline.notifier.compose.Decisions;
import io.tideline.platform.security.Provenance;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfraResource;
import jakarta.inject.Inject;
import jakarta.mail.internet.MimeMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The notifier end to end (P7, O3): decisions and the evictions placement applies go in on a real
 * broker through the real registry; notices come out at a real SMTP server (GreenMail) and a real
 * HTTP server standing for Slack (WireMock), and are read back there.
 *
 * <p>Stream time is global event time, so the scenarios run in order, each on a later day.
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = ChannelServersResource.class, restrictToAnnotatedClass = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NotifierEndToEndTest {

  static final ObjectMapper JSON = new ObjectMapper();

  @Inject NotifierService service;

  @Test
  @Order(1)
  void shouldTellEachOwnerWhyWhereAndWhenInTheirLanguageOnTheirChannels() throws Exception {
    Instant t = Instant.parse("2026-11-02T09:00:00Z");
    awaitRestored();
    // 1. Alice's job waits 3rd in the queue; bob's has no queue estimate but a trough is forecast.
    send("placement.queue", "train-alice-1", QueuePosition.newBuilder().setJobId("train-alice-1")
        .setCluster("c1").setLane(Lane.TRAINING).setPosition(3)
        .setEstimatedStart(t.plus(Duration.ofHours(2))).setEstimateBasis("3 jobs ahead")
        .setCompensationBoost(0.2).setUpdatedAt(t).build());
    Instant night = Instant.parse("2026-11-02T22:00:00Z");
    send("forecast.slots", "*", SlotForecast.newBuilder().setServiceId("*").setSlotStart(night)
        .setSlotEnd(night.plus(Duration.ofHours(8))).setHoliday(false)
        .setSlotClass(SlotClass.TROUGH).setP50(10).setP90(12).setP95(13).setP99(14)
        .setHistoricalPeak(40).setSampleDays(14).setComputedAt(t).build());
    await("queue and forecast read", () -> engine().knowsQueuePosition("train-alice-1")
        && engine().knowsTroughAt(night));
    // 2. One decision preempts a job of each.
    Victim alice = Decisions.victim("train-alice-1", "alice");
    alice.setRetryAfter(night);
    alice.setSharedPoolFallback(true);
    Victim bob = Decisions.victim("train-bob-1", "bob");
    bob.setScore(1.5);
    preempted(Decisions.preempt("dec-content", t, List.of(alice, bob)));

    await("alice's e-mail and both Slack posts", () -> Channels.mails("alice@example.com").size() == 1
        && Channels.slackDelivered("default").size() == 1
        && Channels.slackDelivered("bob").size() == 1);

    // 3. Alice: e-mail (text and HTML) and Slack on the default webhook with her mention.
    MimeMessage mail = Channels.mails("alice@example.com").get(0);
    assertThat(Channels.subject(mail)).isEqualTo("[Tideline] Your job train-alice-1 was preempted");
    String text = Channels.part(mail, "text/plain");
    assertThat(text).contains("Hello alice,")
        .contains("to make room for the online inference job inf-7")
        .contains("Its score 3.00 is 3.00x your job's 1.00")
        .contains("Queue position: 3")
        .contains("Estimated resume: 2026-11-02 12:00 (Europe/Berlin), estimated from placement's"
            + " estimate for your place in the queue")
        .contains("Compensation: a queue boost of +0.20 when it is re-queued; an off-peak retry"
            + " from 2026-11-02 23:00 (Europe/Berlin); it may fall back to the shared pool")
        .contains("https://quota.example.com/request?tenant=tenant-a&job=train-alice-1");
    String html = Channels.part(mail, "text/html");
    assertThat(html).contains("<code>train-alice-1</code> was preempted")
        .contains("href=\"https://quota.example.com/request?tenant=tenant-a&amp;job=train-alice-1\"");
    JsonNode aliceSlack = JSON.readTree(Channels.slackDelivered("default").get(0));
    assertThat(aliceSlack.get("text").asText()).startsWith("<@U0ALICE> ");
    assertThat(aliceSlack.get("blocks").findValuesAsText("url"))
        .contains("https://quota.example.com/request?tenant=tenant-a&job=train-alice-1");

    // 4. Bob: Slack only, in Chinese, ETA from the forecast trough in his zone.
    String bobSlack = JSON.readTree(Channels.slackDelivered("bob").get(0)).toString();
    assertThat(bobSlack).contains("您的作业 train-bob-1 被抢占").contains("2026-11-03 06:00 (Asia/Shanghai)")
        .contains("依据下一个预测低谷时段").contains("2.00 倍");
    assertThat(Channels.mails("bob@example.com")).isEmpty();
  }

  @Test
  @Order(2)
  void shouldRetryServerErrorsWithBackoffAndDeliverExactlyOnce() {
    Instant t = Instant.parse("2026-11-03T09:00:00Z");
    preempted(Decisions.preempt("dec-retry", t,
        List.of(Decisions.victim("train-carol-1", "carol"))));

    await("carol's post accepted", () -> Channels.slackDelivered("carol").size() == 1);
    assertThat(Channels.slackAttempts("carol")).isEqualTo(3); // 500, 503, then 200
    assertThat(Channels.slackDelivered("carol").get(0)).contains("train-carol-1");
  }

  @Test
  @Order(3)
  void shouldDeadLetterANoticeAfterTheLastAttemptAndKeepDelivering() {
    Instant t = Instant.parse("2026-11-04T09:00:00Z");
    preempted(Decisions.preempt("dec-dlq", t,
        List.of(Decisions.victim("train-dave-1", "dave"))));
    preempted(Decisions.preempt("dec-after-dlq", t.plusSeconds(1),
        List.of(Decisions.victim("train-erin-1", "erin"))));

    await("erin served after dave failed", () -> Channels.slackDelivered("erin").size() == 1);
    assertThat(Channels.slackAttempts("dave")).isEqualTo(3);
    List<DeadLetter> letters = deadLetters("notices.dlq", 1);
    assertThat(letters).hasSize(1);
    DeadLetter letter = letters.get(0);
    assertThat(letter.getOriginalTopic()).isEqualTo("notices");
    assertThat(letter.getErrorClass()).isEqualTo("DELIVERY");
    assertThat(letter.getError()).contains("channel SLACK, 3 attempt(s)").contains("HTTP 500");
    assertThat(StandardCharsets.UTF_8.decode(letter.getOriginalKey()).toString()).isEqualTo("dave");
  }

  @Test
  @Order(4)
  void shouldSendFiftyPreemptionsInAMinuteAsOneDigestPerChannel() throws Exception {
    Instant t = Instant.parse("2026-11-05T09:00:00Z");
    // 1. 50 decisions, one a second, each preempting one of frank's jobs.
    for (int i = 0; i < 50; i++) {
      preempted(Decisions.preempt("dec-burst-" + i, t.plusSeconds(i),
          List.of(Decisions.victim("burst-" + i, "frank"))));
    }
    // 2. Once all 50 are in (the clock is another topic: it could overtake them), the cluster
    //    clock passes the end of the 60 s window that the first one opened.
    await("50 notices queued", () -> engine().hasQueued("dec-burst-49/burst-49/PREEMPTED"));
    tick(t.plusSeconds(60));

    await("frank's digest", () -> Channels.slackDelivered("frank").size() == 1
        && Channels.mails("frank@example.com").size() == 1);
    marker("burst-marker", t.plusSeconds(61));
    assertThat(Channels.slackDelivered("frank")).hasSize(1);
    assertThat(Channels.mails("frank@example.com")).hasSize(1);
    JsonNode slack = JSON.readTree(Channels.slackDelivered("frank").get(0));
    assertThat(slack.get("blocks").size()).isLessThanOrEqualTo(50); // Slack's limit
    String all = slack.toString();
    for (int i = 0; i < 50; i++) {
      assertThat(all).contains("`burst-" + i + "` preempted");
    }
    MimeMessage mail = Channels.mails("frank@example.com").get(0);
    assertThat(Channels.subject(mail)).isEqualTo("[Tideline] 50 notices about your jobs");
    assertThat(Channels.part(mail, "text/plain")).contains("50 things happened to your jobs")
        .contains("50. Your job burst-49 was preempted");
  }

  @Test
  @Order(5)
  void shouldHoldANoticeDuringTheUsersQuietHoursFromTheDirectoryTopic() {
    // 1. Gina's directory entry: Slack only, quiet 22:00-07:00 in Shanghai (UTC+8).
    send("notify.directory", "gina", NotifyPreference.newBuilder().setUserId("gina")
        .setChannels(List.of("SLACK")).setSlackWebhookUrl(hook("gina")).setZoneId("Asia/Shanghai")
        .setQuietStart("22:00").setQuietEnd("07:00").setDigest(false).setLocale("en")
        .setUpdatedAt(Instant.parse("2026-11-06T00:00:00Z")).build());
    await("gina's entry read", () -> engine().directory().hasEntry("gina"));
    // 2. Preempted at 23:00 local; the clock reaches 06:59 local: still held.
    Instant at2300 = Instant.parse("2026-11-06T15:00:00Z");
    preempted(Decisions.preempt("dec-quiet", at2300,
        List.of(Decisions.victim("train-gina-1", "gina"))));
    Instant at0659 = Instant.parse("2026-11-06T22:59:00Z");
    tick(at0659);
    marker("quiet-marker-1", at0659);
    assertThat(Channels.slackDelivered("gina")).isEmpty();
    // 3. 07:00 local: released.
    tick(Instant.parse("2026-11-06T23:00:00Z"));
    await("gina's notice after quiet hours", () -> Channels.slackDelivered("gina").size() == 1);
    assertThat(Channels.slackDelivered("gina").get(0)).contains("train-gina-1");
  }

  @Test
  @Order(6)
  void shouldNoticeResumeReclaimShrinkAndAcknowledgeQuotaRequests() {
    Instant t = Instant.parse("2026-11-07T09:00:00Z");
    send("jobs.submitted", "judy-job-2", JobSubmissions.training("judy-job-2").user("judy").at(t).build());
    await("judy-job-2's owner known", () -> engine().knowsOwner("judy-job-2"));
    preempted(Decisions.preempt("dec-judy", t,
        List.of(Decisions.victim("judy-job-1", "judy"))));
    // 1. Resumed (owner known from the decision's victims; lifecycle is another topic, so wait).
    await("judy-job-1's owner known", () -> engine().knowsOwner("judy-job-1"));
    List<GpuAssignment> gpus = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      gpus.add(GpuAssignment.newBuilder().setNodeId("n1").setGpuIndex(i).setShare(1.0).build());
    }
    send("jobs.lifecycle", "judy-job-1", JobLifecycle.newBuilder().setJobId("judy-job-1")
        .setCluster("c1").setType(LifecycleType.RESUMED).setOccurredAt(t.plusSeconds(3600))
        .setAssignments(gpus).setDecisionId("place-judy-9").build());
    // 2. Reclaimed and shrunk, each decided by preemption for quota and applied by placement.
    Victim judy2 = Decisions.victim("judy-job-2", "judy");
    send("preemption.decisions", "c1", Decisions.reclaim("dec-idle-judy", "idle-reclaim/judy-job-2",
        "IDLE_RECLAIM", "Q7 idle reclaim", "peak use 3% < 5% over 2 h", judy2, t.plusSeconds(3700)));
    send("evictions", "judy-job-2", Decisions.eviction("dec-idle-judy", "judy-job-2",
        EvictionKind.RECLAIM, t.plusSeconds(3700)));
    judy2.setShrinkToGpus(2);
    send("preemption.decisions", "c1", Decisions.reclaim("dec-shrink-judy", "shrink/judy-job-2",
        "SHRINK", "Q7 shrink", "peak use 40% of 8 GPUs", judy2, t.plusSeconds(3800)));
    Eviction shrink = Decisions.eviction("dec-shrink-judy", "judy-job-2", EvictionKind.SHRINK,
        t.plusSeconds(3800));
    shrink.setShrinkToGpus(2);
    shrink.setTarget(gpus.subList(0, 2));
    send("evictions", "judy-job-2", shrink);
    // 3. A quota request by REST: acknowledged once, however often it is posted.
    String body = "{\"requestId\":\"qr-1\",\"userId\":\"judy\",\"tenant\":\"tenant-a\","
        + "\"jobId\":\"judy-job-1\",\"gpus\":8,\"requestedAt\":\"2026-11-07T10:05:00Z\"}";
    given().contentType("application/json").body(body).post("/quota-requests").then()
        .statusCode(202).body("noticeId", equalTo("quota-request:qr-1/judy-job-1/QUOTA_REQUEST_ACK"));
    given().contentType("application/json").body(body).post("/quota-requests").then()
        .statusCode(202);
    given().contentType("application/json").body("{\"userId\":\"judy\",\"gpus\":-1}")
        .post("/quota-requests").then().statusCode(400)
        .body("errors", hasItem("gpus: must be > 0")).body("errors", hasItem("requestId: required"));

    await("judy's five notices", () -> Channels.slackDelivered("judy").size() >= 5);
    marker("judy-marker", t.plusSeconds(4000));
    List<String> posts = Channels.slackDelivered("judy");
    assertThat(posts).hasSize(5);
    String all = String.join("\n", posts);
    assertThat(all).contains("Job preempted").contains("Your job judy-job-1 resumed from its checkpoint on 8 GPU(s)")
        .contains("were reclaimed because they sat idle: peak use 3% < 5% over 2 h")
        .contains("Your job judy-job-2 was shrunk to 2 GPU(s): peak use 40% of 8 GPUs")
        .contains("We received your request qr-1 for 8.00 more guaranteed GPUs for tenant tenant-a");
  }

  @Test
  @Order(7)
  void shouldDeadLetterUnreadableAndOwnerlessDecisionsAndKeepConsuming() {
    Instant t = Instant.parse("2026-11-08T09:00:00Z");
    sendRaw("preemption.decisions", "c1", "not avro at all".getBytes(StandardCharsets.UTF_8));
    send("preemption.decisions", "c1",
        Decisions.preempt("dec-no-owner", t, List.of(Decisions.victim("orphan-1", ""))));
    marker("bad-input-marker", t.plusSeconds(1));

    List<DeadLetter> letters = deadLetters("preemption.decisions.dlq", 2);
    assertThat(letters).extracting(DeadLetter::getErrorClass)
        .containsExactly("DESERIALIZATION", "VALIDATION");
    assertThat(letters.get(1).getError()).contains("dec-no-owner").contains("orphan-1")
        .contains("has no owner");
  }

  @Test
  @Order(8)
  void shouldNotSendAgainAfterARestartOrAnAuditReplayFromOffsetZero() {
    Instant t = Instant.parse("2026-11-09T09:00:00Z");
    preempted(Decisions.preempt("dec-ivan", t,
        List.of(Decisions.victim("train-ivan-1", "ivan"))));
    await("ivan told", () -> Channels.slackDelivered("ivan").size() == 1
        && Channels.mails("ivan@example.com").size() == 1);
    long slackBefore = Channels.slackDeliveredTotal();
    int mailsBefore = Channels.mailTotal();
    long noticesBefore = count("notices");

    // 1. Restart: a new engine in the same group restores the deliveries and sends nothing again.
    service.restart("notifier-svc");
    awaitRestored();
    marker("restart-marker", t.plusSeconds(10));
    assertThat(Channels.slackDeliveredTotal()).isEqualTo(slackBefore + 1); // the marker only
    assertThat(Channels.mailTotal()).isEqualTo(mailsBefore);

    // 2. Audit replay: a fresh group consumes every decision again from offset 0.
    service.restart(KafkaBroker.unique("notifier-audit"));
    awaitRestored();
    marker("replay-marker", t.plusSeconds(20));
    assertThat(Channels.slackDeliveredTotal()).isEqualTo(slackBefore + 2); // the two markers
    assertThat(Channels.mailTotal()).isEqualTo(mailsBefore);
    assertThat(Channels.slackDelivered("ivan")).hasSize(1);
    assertThat(Channels.mails("ivan@example.com")).hasSize(1);
    assertThat(Channels.slackDelivered("frank")).hasSize(1);
    assertThat(count("notices")).isEqualTo(noticesBefore + 2); // nothing re-published
  }

  @Test
  @Order(9)
  void shouldTellNobodyAboutAForgedDecisionAndDeadLetterItWithTheReason() {
    Instant t = Instant.parse("2026-11-10T09:00:00Z");
    awaitRestored();
    // 1. On an open broker someone forges hank's preemption, decision and eviction: once with no
    //    stamp at all, once stamped as the submitter.
    PreemptionDecision unstamped = Decisions.preempt("dec-forged-1", t,
        List.of(Decisions.victim("forged-hank-1", "hank")));
    sendAs(null, "preemption.decisions", "c1", unstamped);
    sendAs(null, "evictions", "forged-hank-1", Decisions.applied(unstamped, t).get(0));
    PreemptionDecision foreign = Decisions.preempt("dec-forged-2", t.plusSeconds(1),
        List.of(Decisions.victim("forged-hank-2", "hank")));
    sendAs("tideline-submitter", "preemption.decisions", "c1", foreign);
    sendAs("tideline-submitter", "evictions", "forged-hank-2",
        Decisions.applied(foreign, t.plusSeconds(1)).get(0));
    // 2. preemption-svc's own decision, applied by placement-svc: told.
    marker("real-hank-3", t.plusSeconds(2));

    assertThat(Channels.slackDelivered("hank")).noneMatch(p -> p.contains("forged-hank-"));
    assertForgeriesLettered("preemption.decisions", "preemption-svc");
    assertForgeriesLettered("evictions", "placement-svc");
  }

  /** The two forgeries of {@code topic} (no stamp, the submitter's) are lettered with why. */
  private static void assertForgeriesLettered(String topic, String owner) {
    assertThat(deadLetters(topic + ".dlq", "PROVENANCE", 2)).extracting(DeadLetter::getError)
        .containsExactly(
            "no tideline-producer header: " + topic + " is written only by " + owner
                + " (expected " + owner + ", found none)",
            "written by tideline-submitter, but " + topic + " is written only by " + owner
                + " (expected " + owner + ", found tideline-submitter)");
  }

  // ---- helpers ------------------------------------------------------------------------------

  private NotifierEngine engine() {
    return service.engine();
  }

  private void awaitRestored() {
    await("engine restored", () -> engine() != null && engine().restored());
  }

  /** Sends a decision preempting a job of hank (no digest, no quiet hours) and waits for it. */
  private void marker(String jobId, Instant at) {
    preempted(Decisions.preempt("dec-" + jobId, at,
        List.of(Decisions.victim(jobId, "hank"))));
    await("marker " + jobId, () -> Channels.slackDelivered("hank").stream()
        .anyMatch(b -> b.contains(jobId)));
  }

  private static void tick(Instant at) {
    send("cluster.clock", "c1", ClockTick.newBuilder().setCluster("c1").setTime(at)
        .setSequence(at.getEpochSecond()).setIntervalMillis(10_000)
        .setSource(ClockSource.SIMULATED).build());
  }

  /**
   * Publishes {@code d} and, as placement applies it, the eviction of each victim (at the
   * decision's time): notices follow applied evictions.
   */
  private static void preempted(PreemptionDecision d) {
    send("preemption.decisions", "c1", d);
    for (Eviction e : Decisions.applied(d, d.getDecidedAt())) {
      send("evictions", e.getJobId(), e);
    }
  }

  private static String hook(String name) {
    return "http://127.0.0.1:" + ChannelServersResource.slack.port() + "/hooks/" + name;
  }

  private static Map<String, Object> serde() {
    return AvroSerdes.serdeConfig(TidelineInfraResource.infra().registry().url(), true);
  }

  private static Properties producerProps() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        TidelineInfraResource.infra().broker().bootstrapServers());
    return p;
  }

  /** Sends as the topic's owner, as the real writer would stamp it (ADR 0029). */
  private static void send(String topic, String key, Object value) {
    sendAs(Provenance.ownerOf(topic), topic, key, value);
  }

  /** Sends stamped {@code producer} ({@code null}: no stamp at all, a forger's record). */
  private static void sendAs(String producer, String topic, String key, Object value) {
    try (var kafka = new KafkaProducer<String, Object>(producerProps(), new StringSerializer(),
        AvroSerdes.valueSerializer(serde()))) {
      kafka.send(new ProducerRecord<>(topic, null, key, value, Provenance.stampOf(producer)))
          .get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static void sendRaw(String topic, String key, byte[] value) {
    try (var producer = new KafkaProducer<>(producerProps(), new StringSerializer(),
        new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>(topic, null, key, value,
          Provenance.stampOf(Provenance.ownerOf(topic)))).get();
    } catch (Exception e) {
      throw new AssertionError(e);
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

  /** The letters of class {@code errorClass} on {@code topic}, once {@code expected} are there. */
  private static List<DeadLetter> deadLetters(String topic, String errorClass, int expected) {
    List<DeadLetter> out = new ArrayList<>();
    try (var consumer = reader()) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (out.size() < expected && System.nanoTime() < deadline) {
        for (var r : consumer.poll(Duration.ofMillis(200))) {
          if (r.value() instanceof DeadLetter l && errorClass.equals(l.getErrorClass())) {
            out.add(l);
          }
        }
      }
    }
    return out;
  }

  private static List<DeadLetter> deadLetters(String topic, int expected) {
    List<DeadLetter> out = new ArrayList<>();
    try (var consumer = reader()) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (out.size() < expected && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> out.add((DeadLetter) r.value()));
      }
    }
    return out;
  }

  /** Records on {@code topic} up to its current end. */
  private static long count(String topic) {
    try (var consumer = reader()) {
      List<TopicPartition> parts = consumer.partitionsFor(topic).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      long n = 0;
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        for (var r : consumer.poll(Duration.ofMillis(200))) {
          if (r.value() instanceof Notice) {
            n++;
          }
        }
      }
      return n;
    }
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
