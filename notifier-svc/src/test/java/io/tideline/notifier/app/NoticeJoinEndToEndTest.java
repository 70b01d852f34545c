package io.tideline.notifier.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.events.ClockSource;
import io.tideline.events.ClockTick;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.Lane;
import io.tideline.events.Notice;
import io.tideline.events.NoticeKind;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.QueuePosition;
import io.tideline.events.Victim;
import io.tideline.notifier.compose.Decisions;
import io.tideline.platform.security.Provenance;
import io.tideline.platform.serde.AvroSerdes;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.KafkaBroker;
import io.tideline.testkit.TidelineInfraResource;
import jakarta.inject.Inject;
import jakarta.mail.internet.MimeMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Notices follow applied facts, never intentions (P7, design rule 2; ADR 0019): a preemption
 * decision is told to nobody until placement applies it with an {@code Eviction}, and then once,
 * explained by the decision, whichever of the two the notifier reads first, across restarts. On a
 * real broker and registry, a real SMTP server (GreenMail) and a real HTTP server for Slack.
 *
 * <p>Stream time is global event time, so the scenarios run in order, each on a later day; the
 * join's defaults are in force (decisions wait 1 h for their evictions, evictions 10 min for their
 * decision).
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = ChannelServersResource.class, restrictToAnnotatedClass = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NoticeJoinEndToEndTest {

  static final ObjectMapper JSON = new ObjectMapper();

  @Inject NotifierService service;

  @Test
  @Order(1)
  void shouldNotNotifyADecisionPlacementNeverApplied() {
    Instant t = Instant.parse("2026-11-20T09:00:00Z");
    awaitRestored();
    // 1. Preemption decides to evict kate's job; placement refuses the plan as stale: no eviction.
    send("preemption.decisions", "c1", Decisions.preempt("dec-kate-stale", t,
        List.of(Decisions.victim("kate-job-1", "kate"))));
    await("the decision waits for its eviction",
        () -> engine().waiting().decisions().contains("dec-kate-stale"));
    // 2. An hour of event time later it is dropped, never told.
    tick(t.plus(Duration.ofHours(1)));
    await("the decision dropped at its horizon",
        () -> !engine().waiting().decisions().contains("dec-kate-stale"));
    marker("kate", "dec-kate-marker", t.plus(Duration.ofHours(1)).plusSeconds(1));

    assertThat(Channels.slackDelivered("kate")).hasSize(1)
        .allSatisfy(p -> assertThat(p).contains("kate-marker").doesNotContain("kate-job-1"));
    assertThat(notices()).extracting(Notice::getJobId).doesNotContain("kate-job-1");
  }

  @Test
  @Order(2)
  void shouldNotifyOncePerAppliedEvictionWhicheverArrivesFirst() {
    Instant t = Instant.parse("2026-11-21T09:00:00Z");
    // 1. The decision first, then placement's eviction.
    PreemptionDecision first = Decisions.preempt("dec-leo-1", t,
        List.of(Decisions.victim("leo-job-1", "leo")));
    send("preemption.decisions", "c1", first);
    await("decision read", () -> engine().waiting().decisions().contains("dec-leo-1"));
    Eviction e1 = Decisions.applied(first, t.plusSeconds(1)).get(0);
    send("evictions", e1.getJobId(), e1);
    // 2. The eviction first (another partition, read earlier), then its decision.
    PreemptionDecision second = Decisions.preempt("dec-leo-2", t.plusSeconds(10),
        List.of(Decisions.victim("leo-job-2", "leo")));
    Eviction e2 = Decisions.applied(second, t.plusSeconds(11)).get(0);
    send("evictions", e2.getJobId(), e2);
    await("eviction waits for its decision",
        () -> engine().waiting().evictions().contains("dec-leo-2/leo-job-2"));
    send("preemption.decisions", "c1", second);
    await("both told", () -> Channels.slackDelivered("leo").size() == 2);
    // 3. Both records once more (a producer retry, a replay): nothing new.
    send("evictions", e1.getJobId(), e1);
    send("preemption.decisions", "c1", second);
    send("evictions", e2.getJobId(), e2);
    marker("leo", "dec-leo-marker", t.plusSeconds(20));

    List<String> posts = Channels.slackDelivered("leo");
    assertThat(posts).hasSize(3);
    assertThat(posts.get(0) + posts.get(1)).contains("leo-job-1").contains("leo-job-2")
        .contains("to make room for the online inference job inf-7");
    assertThat(notices()).filteredOn(n -> n.getJobId().startsWith("leo-job-"))
        .extracting(Notice::getNoticeId)
        .containsExactlyInAnyOrder("dec-leo-1/leo-job-1/PREEMPTED", "dec-leo-2/leo-job-2/PREEMPTED");
    assertThat(engine().waiting().evictions()).doesNotContain("dec-leo-2/leo-job-2");
  }

  @Test
  @Order(3)
  void shouldExplainAnAppliedEvictionWithItsDecision() throws Exception {
    Instant t = Instant.parse("2026-11-22T09:00:00Z");
    // 1. One decision, two victims; placement applies mia's eviction only (noah's job had ended).
    send("placement.queue", "mia-job-1", QueuePosition.newBuilder().setJobId("mia-job-1")
        .setCluster("c1").setLane(Lane.TRAINING).setPosition(2)
        .setEstimatedStart(t.plus(Duration.ofMinutes(90))).setEstimateBasis("2 jobs ahead")
        .setCompensationBoost(0.2).setUpdatedAt(t).build());
    await("queue read", () -> engine().knowsQueuePosition("mia-job-1"));
    Victim mia = Decisions.victim("mia-job-1", "mia");
    mia.setScore(1.5);
    PreemptionDecision d = Decisions.preempt("dec-mia", t,
        List.of(mia, Decisions.victim("noah-job-1", "noah")));
    send("preemption.decisions", "c1", d);
    Instant applied = t.plusSeconds(3);
    send("evictions", "mia-job-1", Decisions.eviction("dec-mia", "mia-job-1",
        EvictionKind.PREEMPT, applied));
    // 2. A Q3 guarantee reclaim, applied as a PREEMPT eviction, in quota's words.
    send("preemption.decisions", "c1", Decisions.reclaim("dec-mia-q3", "guarantee/mia-job-2",
        "GUARANTEE_RECLAIM", "Q3 guarantee reclaim",
        "queue online/search is 12 GPUs below its guarantee", Decisions.victim("mia-job-2", "mia"),
        t.plusSeconds(5)));
    send("evictions", "mia-job-2", Decisions.eviction("dec-mia-q3", "mia-job-2",
        EvictionKind.PREEMPT, t.plusSeconds(6)));

    await("mia told twice", () -> Channels.slackDelivered("mia").size() == 2);
    String why = Channels.slackDelivered("mia").stream().filter(p -> p.contains("mia-job-1"))
        .findFirst().orElseThrow();
    JsonNode post = JSON.readTree(why);
    assertThat(post.toString()).contains("Your job mia-job-1 was preempted to make room for the"
            + " online inference job inf-7")
        .contains("Its score 3.00 is 2.00x your job's 1.50")
        .contains("*Queue position*\\n2")
        .contains("a queue boost of +0.20 when it is re-queued");
    assertThat(post.get("blocks").findValuesAsText("url"))
        .contains("https://quota.example.com/request?tenant=tenant-a&job=mia-job-1");
    assertThat(Channels.slackDelivered("mia")).anySatisfy(p -> assertThat(json(p))
        .contains("Your job mia-job-2 was preempted: the GPUs it borrowed from the shared pool"
            + " were taken back for a queue below its guaranteed quota (Q3): queue online/search"
            + " is 12 GPUs below its guarantee"));
    Notice n = notices().stream().filter(x -> x.getJobId().equals("mia-job-1")).findFirst()
        .orElseThrow();
    assertThat(n.getDecisionId()).isEqualTo("dec-mia");
    assertThat(n.getCreatedAt()).isEqualTo(applied); // the applied fact's time
    assertThat(n.getEstimatedResume()).isEqualTo(t.plus(Duration.ofMinutes(90)));
    // 3. Noah's eviction never comes: past the horizon he has been told nothing.
    tick(t.plus(Duration.ofHours(1)));
    await("dec-mia dropped", () -> !engine().waiting().decisions().contains("dec-mia"));
    marker("noah", "dec-noah-marker", t.plus(Duration.ofHours(1)).plusSeconds(1));
    assertThat(Channels.slackDelivered("noah")).hasSize(1)
        .allSatisfy(p -> assertThat(p).doesNotContain("noah-job-1"));
  }

  @Test
  @Order(4)
  void shouldTellAnEvictionWithoutADecisionItsOwnReasonOnceTheWaitEnds() {
    Instant t = Instant.parse("2026-11-23T09:00:00Z");
    send("jobs.submitted", "sol-job-1", JobSubmissions.training("sol-job-1").user("sol").at(t)
        .build());
    await("sol's job known", () -> engine().knowsOwner("sol-job-1"));
    // 1. An applied eviction whose decision never arrives: it waits 10 minutes of event time.
    send("evictions", "sol-job-1", Decisions.eviction("dec-sol-lost", "sol-job-1",
        EvictionKind.PREEMPT, t.plusSeconds(1)));
    await("eviction waits", () -> engine().waiting().evictions().contains("dec-sol-lost/sol-job-1"));
    tick(t.plus(Duration.ofMinutes(5)));
    marker("sol", "dec-sol-marker", t.plus(Duration.ofMinutes(5)));
    assertThat(Channels.slackDelivered("sol")).hasSize(1);
    // 2. Its wait over, it is told with placement's own reason.
    tick(t.plus(Duration.ofMinutes(11)));
    await("sol told", () -> Channels.slackDelivered("sol").size() == 2);
    assertThat(Channels.slackDelivered("sol").get(1))
        .contains("Your job sol-job-1 was preempted: preempted (decision dec-sol-lost)")
        .contains("please do not resubmit it");
  }

  @Test
  @Order(5)
  void shouldTellAShrunkJobItsNewSizeAndStretchedEta() throws Exception {
    Instant t = Instant.parse("2026-11-24T09:00:00Z");
    // 1. Quota finds both jobs using under half of their 4 GPUs; preemption decides the shrinks.
    send("placement.queue", "pia-job-1", QueuePosition.newBuilder().setJobId("pia-job-1")
        .setCluster("c1").setLane(Lane.TRAINING).setPosition(1)
        .setEstimatedStart(t.plus(Duration.ofMinutes(4))).setEstimateBasis("next in lane")
        .setCompensationBoost(0).setUpdatedAt(t).build());
    await("queue read", () -> engine().knowsQueuePosition("pia-job-1"));
    for (String user : List.of("pia", "qiu")) {
      Victim v = Decisions.victim(user + "-job-1", user);
      v.setShrinkToGpus(2);
      send("preemption.decisions", "c1", Decisions.reclaim("dec-shrink-" + user,
          "shrink/" + user + "-job-1", "SHRINK", "Q7 shrink",
          "GPU utilisation 31% < 50% over the last 2 h", v, t));
      // 2. Placement enacts them: checkpoint, stop, restart on 2 GPUs; 10 h on 4 is 20 h on 2.
      Eviction e = Decisions.eviction("dec-shrink-" + user, user + "-job-1", EvictionKind.SHRINK,
          t.plusSeconds(1));
      e.setShrinkToGpus(2);
      e.setExpectedDurationSecondsAfter(Duration.ofHours(20).toSeconds());
      send("evictions", e.getJobId(), e);
    }

    await("pia's mail and post, qiu's post", () -> Channels.mails("pia@example.com").size() == 1
        && Channels.slackDelivered("pia").size() == 1 && Channels.slackDelivered("qiu").size() == 1);
    MimeMessage mail = Channels.mails("pia@example.com").get(0);
    assertThat(Channels.subject(mail)).isEqualTo("[Tideline] Your job pia-job-1 was shrunk to 2 GPU(s)");
    assertThat(Channels.part(mail, "text/plain"))
        .contains("Your job pia-job-1 was shrunk to 2 GPU(s): GPU utilisation 31% < 50% over the"
            + " last 2 h")
        .contains("restarts from its checkpoint on 2 GPU(s)")
        .contains("New size: 2 GPU(s), expected run time now about 20 h 00 min")
        .contains("Estimated resume: 2026-11-24 10:04 (Europe/Berlin), estimated from placement's"
            + " estimate for your place in the queue");
    assertThat(Channels.part(mail, "text/html")).contains("<strong>New size:</strong> 2 GPU(s)");
    assertThat(JSON.readTree(Channels.slackDelivered("pia").get(0)).get("blocks").toString())
        .contains("Job shrunk").contains("*New size*\\n2 GPU(s)");
    String qiu = JSON.readTree(Channels.slackDelivered("qiu").get(0)).toString();
    assertThat(qiu).contains("作业已缩减").contains("您的作业 qiu-job-1 已缩减至 2 块 GPU")
        .contains("预计运行时长约 20 小时 00 分钟").contains("GPU 空闲时立即恢复");
    Notice n = notices().stream().filter(x -> x.getJobId().equals("pia-job-1")).findFirst()
        .orElseThrow();
    assertThat(n.getKind()).isEqualTo(NoticeKind.SHRUNK);
    assertThat(n.getGpusAfter()).isEqualTo(2);
    assertThat(n.getExpectedRunSecondsAfter()).isEqualTo(72_000L);
    assertThat(n.getNoticeId()).isEqualTo("dec-shrink-pia/pia-job-1/SHRUNK");
  }

  @Test
  @Order(6)
  void shouldNotLoseAPendingJoinAcrossARestart() {
    Instant t = Instant.parse("2026-11-25T09:00:00Z");
    // 1. A decision waits for its eviction; the notifier restarts in between.
    send("preemption.decisions", "c1", Decisions.preempt("dec-rex-1", t,
        List.of(Decisions.victim("rex-job-1", "rex"))));
    await("decision waits", () -> engine().waiting().decisions().contains("dec-rex-1"));
    service.restart("notifier-svc");
    awaitRestored();
    assertThat(engine().waiting().decisions()).contains("dec-rex-1"); // restored from notices.joins
    send("evictions", "rex-job-1", Decisions.eviction("dec-rex-1", "rex-job-1",
        EvictionKind.PREEMPT, t.plusSeconds(2)));
    await("rex told about job 1", () -> Channels.slackDelivered("rex").size() == 1);
    // 2. An eviction waits for its decision; the notifier restarts in between.
    send("evictions", "rex-job-2", Decisions.eviction("dec-rex-2", "rex-job-2",
        EvictionKind.PREEMPT, t.plusSeconds(5)));
    await("eviction waits", () -> engine().waiting().evictions().contains("dec-rex-2/rex-job-2"));
    service.restart("notifier-svc");
    awaitRestored();
    assertThat(engine().waiting().evictions()).contains("dec-rex-2/rex-job-2");
    send("preemption.decisions", "c1", Decisions.preempt("dec-rex-2", t.plusSeconds(4),
        List.of(Decisions.victim("rex-job-2", "rex"))));
    await("rex told about job 2", () -> Channels.slackDelivered("rex").size() == 2);
    assertThat(Channels.slackDelivered("rex").get(1)).contains("rex-job-2")
        .contains("to make room for the online inference job inf-7"); // explained, not alone
    // 3. Restarted again, and replayed from offset 0 by a fresh group: nothing told twice.
    long before = notices().size();
    service.restart("notifier-svc");
    awaitRestored();
    service.restart(KafkaBroker.unique("notifier-audit"));
    awaitRestored();
    marker("rex", "dec-rex-marker", t.plusSeconds(30));
    assertThat(Channels.slackDelivered("rex")).hasSize(3);
    assertThat(notices()).hasSize((int) before + 1); // the marker only
    service.restart("notifier-svc");
    awaitRestored();
  }

  @Test
  @Order(7)
  void shouldTellNobodyAboutADefragmentationMove() {
    Instant t = Instant.parse("2026-11-26T09:00:00Z");
    awaitRestored();
    send("jobs.submitted", "uma-job-1", JobSubmissions.training("uma-job-1").user("uma").at(t)
        .build());
    await("uma's job known", () -> engine().knowsOwner("uma-job-1"));
    // 1. Placement moves uma's job to defragment the fleet: an applied MIGRATE eviction.
    Eviction move = Decisions.eviction("defrag-uma", "uma-job-1", EvictionKind.MIGRATE,
        t.plusSeconds(1));
    RecordMetadata at = send("evictions", "uma-job-1", move);
    await("the move read and committed", () -> committedPast(at));
    assertThat(engine().waiting().evictions()).doesNotContain("defrag-uma/uma-job-1");
    // 2. Past the wait after which an eviction without its decision is told: still nothing.
    tick(t.plus(Duration.ofMinutes(11)));
    marker("uma", "dec-uma-marker", t.plus(Duration.ofMinutes(11)));

    assertThat(Channels.slackDelivered("uma")).hasSize(1)
        .allSatisfy(p -> assertThat(p).contains("uma-marker").doesNotContain("uma-job-1"));
    assertThat(notices()).extracting(Notice::getJobId).doesNotContain("uma-job-1");
  }

  // ---- helpers ------------------------------------------------------------------------------

  private NotifierEngine engine() {
    return service.engine();
  }

  private void awaitRestored() {
    await("engine restored", () -> engine() != null && engine().restored());
  }

  /** Preempts a job of {@code user} (decision and applied eviction) and waits for the post. */
  private void marker(String user, String decisionId, Instant at) {
    String job = decisionId.substring("dec-".length());
    PreemptionDecision d = Decisions.preempt(decisionId, at, List.of(Decisions.victim(job, user)));
    send("preemption.decisions", "c1", d);
    send("evictions", job, Decisions.applied(d, at).get(0));
    await("marker " + job, () -> Channels.slackDelivered(user).stream()
        .anyMatch(b -> b.contains(job)));
  }

  /** A Slack payload as JSON text with plain slashes (the template escapes them). */
  private static String json(String payload) {
    try {
      return JSON.readTree(payload).toString();
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + payload, e);
    }
  }

  private static void tick(Instant at) {
    send("cluster.clock", "c1", ClockTick.newBuilder().setCluster("c1").setTime(at)
        .setSequence(at.getEpochSecond()).setIntervalMillis(10_000)
        .setSource(ClockSource.SIMULATED).build());
  }

  private static Map<String, Object> serde() {
    return AvroSerdes.serdeConfig(TidelineInfraResource.infra().registry().url(), true);
  }

  private static RecordMetadata send(String topic, String key, Object value) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        TidelineInfraResource.infra().broker().bootstrapServers());
    try (var producer = new KafkaProducer<String, Object>(p, new StringSerializer(),
        AvroSerdes.valueSerializer(serde()))) {
      return producer.send(new ProducerRecord<>(topic, null, key, value,
          Provenance.stampOf(Provenance.ownerOf(topic)))).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Whether the running notifier's group has committed past the record at {@code r}. */
  private boolean committedPast(RecordMetadata r) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
        TidelineInfraResource.infra().broker().bootstrapServers());
    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
    try (Admin admin = Admin.create(p)) {
      OffsetAndMetadata c = admin.listConsumerGroupOffsets(service.config().groupId())
          .partitionsToOffsetAndMetadata().get().get(tp);
      return c != null && c.offset() > r.offset();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Every notice published on {@code notices} up to its current end. */
  private static List<Notice> notices() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        TidelineInfraResource.infra().broker().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBroker.unique("reader"));
    List<Notice> out = new ArrayList<>();
    try (var consumer = new KafkaConsumer<String, Object>(p, new StringDeserializer(),
        AvroSerdes.valueDeserializer(serde()))) {
      List<TopicPartition> parts = consumer.partitionsFor("notices").stream()
          .map(i -> new TopicPartition("notices", i.partition())).toList();
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> out.add((Notice) r.value()));
      }
    }
    return out;
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
