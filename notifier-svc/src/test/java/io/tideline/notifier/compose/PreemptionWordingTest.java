package io.tideline.notifier.compose;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.PreemptionDecision;
import io.tideline.events.Victim;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The words an owner reads come from the decision's rule trace (P7). */
class PreemptionWordingTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");

  @Test
  void shouldExplainWhoTookTheRoomWithWhatRightRatioCostAndGain() {
    Victim v = Decisions.victim("train-1", "alice");
    v.setScore(1.5);
    PreemptionDecision d = Decisions.preempt("dec-1", T0, List.of(v));

    Explanation e = PreemptionExplainer.explain(d, v);

    assertThat(e.preemptorRight()).isEqualTo("ONLINE_INFERENCE");
    assertThat(e.scoreRatio()).isEqualTo(2.0);
    assertThat(e.gainGpuHours()).isEqualTo(12.0);
    String en = Wording.preemptionReason(e, Lang.EN);
    assertThat(en).contains("Your job train-1 was preempted to make room for the online inference job inf-7")
        .contains("Its score 3.00 is 2.00x your job's 1.50")
        .contains("protection window had ended")
        .contains("costs about 0.50 GPU-hours, less than the 12.00 GPU-hours gained by running inf-7 now")
        .contains("not a cluster fault").contains("do not resubmit");
    String zh = Wording.preemptionReason(e, Lang.ZH_CN);
    assertThat(zh).contains("您的作业 train-1 被抢占").contains("在线推理作业 inf-7")
        .contains("2.00 倍").contains("保护期已结束").contains("请勿重复提交");
  }

  @Test
  void shouldComputeTheRatioFromScoresWhenTheTraceDoesNotStateIt() {
    Victim v = Decisions.victim("train-2", "bob");
    v.setScore(2.0);
    PreemptionDecision d = Decisions.preempt("dec-2", T0, List.of(v));
    d.setTrace(d.getTrace().subList(0, 1)); // only the preemptor's right

    assertThat(PreemptionExplainer.explain(d, v).scoreRatio()).isEqualTo(1.5);
  }

  @Test
  void shouldNameTenantAndCriticalRightsAndSayHowManyJobsWerePreempted() {
    Victim a = Decisions.victim("a", "u");
    Victim b = Decisions.victim("b", "u");
    PreemptionDecision d = Decisions.preempt("dec-3", T0, List.of(a, b));
    d.getTrace().set(0, Decisions.entry("inf-7", "W4 right to preempt", "PASS",
        "tenant search is a business level with the right to preempt"));

    String en = Wording.preemptionReason(PreemptionExplainer.explain(d, a), Lang.EN);

    assertThat(en).contains("a job of tenant search (which holds the right to preempt), inf-7")
        .contains("(the decision's 2 victims together: 1.00 GPU-hours), less than");
    d.getTrace().set(0, Decisions.entry("inf-7", "W4 right to preempt", "PASS", "critical job"));
    assertThat(PreemptionExplainer.explain(d, a).preemptorRight()).isEqualTo("CRITICAL");
  }

  @Test
  void shouldListEveryCompensationInTheUsersZone() {
    String en = Wording.compensation(0.25, Instant.parse("2026-11-02T22:00:00Z"), true,
        ZoneId.of("Asia/Shanghai"), Lang.EN);
    assertThat(en).isEqualTo("a queue boost of +0.25 when it is re-queued; an off-peak retry from"
        + " 2026-11-03 06:00 (Asia/Shanghai); it may fall back to the shared pool");
    assertThat(Wording.compensation(0, null, false, ZoneId.of("UTC"), Lang.ZH_CN)).isEqualTo("无");
  }

  @Test
  void shouldPickChineseForAnyZhTagAndEnglishOtherwise() {
    assertThat(Lang.of("zh-CN")).isEqualTo(Lang.ZH_CN);
    assertThat(Lang.of("zh")).isEqualTo(Lang.ZH_CN);
    assertThat(Lang.of("fr-FR")).isEqualTo(Lang.EN);
    assertThat(Lang.of(null)).isEqualTo(Lang.EN);
  }

  @Test
  void shouldFillTheQuotaLinkUrlEncoded() {
    assertThat(QuotaLink.of("https://quota.example.com/request?tenant={tenant}&job={jobId}",
        "team a&b", "job/1")).isEqualTo(
            "https://quota.example.com/request?tenant=team+a%26b&job=job%2F1");
  }
}
