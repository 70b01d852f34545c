package io.tideline.notifier.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tideline.core.preemption.TroughSlot;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.Lane;
import io.tideline.events.Notice;
import io.tideline.events.PreemptionDecision;
import io.tideline.events.QueuePosition;
import io.tideline.events.Victim;
import io.tideline.notifier.compose.Decisions;
import io.tideline.notifier.compose.Lang;
import io.tideline.notifier.compose.NoticeComposer;
import io.tideline.notifier.compose.QuotaLink;
import io.tideline.notifier.delivery.Channel;
import io.tideline.notifier.delivery.QuietHours;
import io.tideline.testkit.TidelineInfraResource;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Renders sample notices with the real templates and writes them to {@code docs/notices/}, so a
 * reader sees what users get: one preemption notice (text, HTML e-mail, Slack JSON) in English
 * and Chinese, one shrink notice in both, and a digest. Also checks each Slack payload is valid JSON.
 */
@QuarkusTest
@QuarkusTestResource(value = TidelineInfraResource.class, restrictToAnnotatedClass = true)
class SampleNoticesTest {

  static final Instant T = Instant.parse("2026-11-02T09:00:00Z");
  static final Path DOCS = Path.of("..", "docs", "notices");

  @Inject NoticeRenderer renderer;

  @Test
  void shouldRenderTheSampleNoticesFromTheRealTemplates() throws Exception {
    Files.createDirectories(DOCS);
    Victim v = Decisions.victim("train-llm-7b-42", "alice");
    v.setScore(1.2);
    v.setCostGpuHours(1.35);
    v.setRetryAfter(Instant.parse("2026-11-02T22:00:00Z"));
    v.setSharedPoolFallback(true);
    Victim other = Decisions.victim("train-vision-9", "carol");
    PreemptionDecision d = Decisions.preempt("pre-c1-000917", T, List.of(v, other));
    QueuePosition q = QueuePosition.newBuilder().setJobId(v.getJobId()).setCluster("c1")
        .setLane(Lane.TRAINING).setPosition(4).setEstimatedStart(T.plus(Duration.ofMinutes(95)))
        .setEstimateBasis("4th in the training lane").setCompensationBoost(0.2).setUpdatedAt(T)
        .build();

    for (Lang lang : Lang.values()) {
      ZoneId zone = ZoneId.of(lang == Lang.ZH_CN ? "Asia/Shanghai" : "Europe/Berlin");
      Notice n = NoticeComposer.evicted(Decisions.applied(d, T.plusSeconds(2)).get(0), d, v, null,
          context(q, lang, zone));
      Route route = new Route("alice", EnumSet.allOf(Channel.class), "alice@example.com",
          "https://hooks.slack.com/services/T000/B000/XXXX", "U024BE7LH", lang, zone,
          QuietHours.none(), true);
      NoticeRenderer.Rendered r = renderer.render(List.of(n), route);
      write("preempted." + lang.tag(), r);
      assertThat(r.text()).contains("train-llm-7b-42").contains(n.getQuotaRequestUrl());
    }
    // A shrink (Q7): 4 GPUs to 2, 10 h stretched to 20 h, re-queued 2nd.
    Victim s = Decisions.victim("train-sweep-3", "alice");
    s.setGpus(2);
    s.setShrinkToGpus(2);
    PreemptionDecision shrink = Decisions.reclaim("pre-c1-000950", "shrink/train-sweep-3",
        "SHRINK", "Q7 shrink", "GPU utilisation 31% < 50% over the last 2 h", s, T);
    Eviction e = Decisions.eviction(shrink.getDecisionId(), s.getJobId(), EvictionKind.SHRINK,
        T.plusSeconds(2));
    e.setShrinkToGpus(2);
    e.setExpectedDurationSecondsAfter(20 * 3600L);
    QueuePosition sq = QueuePosition.newBuilder().setJobId(s.getJobId()).setCluster("c1")
        .setLane(Lane.TRAINING).setPosition(2).setEstimatedStart(T.plus(Duration.ofMinutes(12)))
        .setEstimateBasis("2nd in the training lane").setCompensationBoost(0).setUpdatedAt(T)
        .build();
    for (Lang lang : Lang.values()) {
      ZoneId zone = ZoneId.of(lang == Lang.ZH_CN ? "Asia/Shanghai" : "Europe/Berlin");
      Notice n = NoticeComposer.evicted(e, shrink, s, null, context(sq, lang, zone));
      NoticeRenderer.Rendered r = renderer.render(List.of(n), new Route("alice",
          EnumSet.allOf(Channel.class), "alice@example.com",
          "https://hooks.slack.com/services/T000/B000/XXXX", "U024BE7LH", lang, zone,
          QuietHours.none(), true));
      write("shrunk." + lang.tag(), r);
      assertThat(r.text()).contains(lang == Lang.ZH_CN ? "20 小时 00 分钟" : "20 h 00 min");
    }
    // A digest: five preemptions of one user in a minute.
    List<Notice> burst = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      PreemptionDecision di = Decisions.preempt("pre-c1-00100" + i, T.plusSeconds(10L * i),
          List.of(Decisions.victim("sweep-" + i, "alice")));
      burst.add(NoticeComposer.evicted(Decisions.applied(di, di.getDecidedAt()).get(0), di,
          di.getVictims().get(0), null, context(null, Lang.EN, ZoneId.of("UTC"))));
    }
    write("digest.en", renderer.render(burst, new Route("alice", EnumSet.allOf(Channel.class),
        "alice@example.com", "https://hooks.slack.com/services/T000/B000/XXXX", null, Lang.EN,
        ZoneId.of("UTC"), QuietHours.none(), true)));
  }

  private static NoticeComposer.Context context(QueuePosition q, Lang lang, ZoneId zone) {
    return new NoticeComposer.Context() {
      @Override
      public QueuePosition queue(String jobId) {
        return q != null && q.getJobId().equals(jobId) ? q : null;
      }

      @Override
      public Collection<TroughSlot> troughs() {
        return List.of(new TroughSlot(Instant.parse("2026-11-02T22:00:00Z"),
            Instant.parse("2026-11-03T06:00:00Z")));
      }

      @Override
      public NoticeComposer.Profile profile(String userId) {
        return new NoticeComposer.Profile(lang, zone);
      }

      @Override
      public String quotaUrl(String tenant, String jobId) {
        return QuotaLink.of("https://quota.example.com/request?tenant={tenant}&job={jobId}",
            tenant, jobId);
      }
    };
  }

  private static void write(String name, NoticeRenderer.Rendered r) throws Exception {
    new ObjectMapper().readTree(r.slackJson()); // valid JSON, or this throws
    Files.writeString(DOCS.resolve(name + ".txt"),
        "Subject: " + r.subject() + "\n\n" + r.text(), StandardCharsets.UTF_8);
    Files.writeString(DOCS.resolve(name + ".html"), r.html(), StandardCharsets.UTF_8);
    Files.writeString(DOCS.resolve(name + ".slack.json"),
        new ObjectMapper().readTree(r.slackJson()).toPrettyString() + "\n", StandardCharsets.UTF_8);
  }
}
