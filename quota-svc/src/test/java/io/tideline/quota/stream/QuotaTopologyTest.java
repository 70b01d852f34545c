package io.tideline.quota.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.platform.security.Provenance;
import io.tideline.events.BillingUsage;
import io.tideline.events.DeadLetter;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.PricingKind;
import io.tideline.events.QuotaChange;
import io.tideline.events.QuotaChangeKind;
import io.tideline.events.QuotaReclaim;
import io.tideline.events.QuotaState;
import io.tideline.events.QuotaVerdict;
import io.tideline.events.ReclaimAction;
import io.tideline.events.SlotClass;
import io.tideline.events.Verdict;
import io.tideline.state.BillingDayRecord;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.RegistryFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenarios of the quota topology with explicit event times, against a real schema registry. The
 * fleet and hierarchy are {@link QuotaScenario#DEFINITION}: 16 GPUs, search (floor 8, borrow cap
 * 4) and research (floor 4), a shared pool of 4. The writer decides on clock ticks only: each
 * scenario feeds its records, then a {@code cluster.clock} tick after them.
 */
class QuotaTopologyTest {

  static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
  @RegisterExtension static final RegistryFixture registry = new RegistryFixture();
  QuotaScenario q;

  @BeforeEach
  void driver() {
    q = new QuotaScenario(registry.url());
  }

  @AfterEach
  void close() {
    q.close();
  }

  static JobSubmitted training(String id, int gpus, Instant at) {
    return JobSubmissions.training(id).gpus(gpus).at(at).build();
  }

  private QuotaVerdict last(String jobId) {
    List<QuotaVerdict> vs = q.read(TopicCatalogue.QUOTA_VERDICTS);
    return vs.stream().filter(v -> v.getJobId().equals(jobId)).reduce((a, b) -> b).orElseThrow(
        () -> new AssertionError("no verdict for " + jobId + " in " + vs));
  }

  @Test
  void shouldGrantTheFloorThenLendThePoolThenQueueAtTheBorrowingCap() {
    q.submit(training("g1", 4, T0));
    q.submit(training("s1", 4, T0.plusSeconds(60)));
    q.submit(training("q1", 2, T0.plusSeconds(120)));
    q.tick(T0.plusSeconds(121));

    List<QuotaVerdict> vs = q.read(TopicCatalogue.QUOTA_VERDICTS);
    assertThat(vs).extracting(QuotaVerdict::getJobId).containsExactly("g1", "s1", "q1");
    QuotaVerdict g1 = vs.get(0);
    assertThat(g1.getVerdict()).isEqualTo(Verdict.GUARANTEED);
    assertThat(g1.getPreemptible()).isFalse();
    assertThat(g1.getQueue()).isEqualTo("acme/search/ranking/training");
    assertThat(g1.getPolicyVersion()).isEqualTo("quota-rules-2/test-1");
    assertThat(g1.getDecidedAt()).as("the tick that decided it").isEqualTo(T0.plusSeconds(121));
    assertThat(g1.getTrace()).extracting(t -> t.getRule()).contains("Q2 guaranteed floor");
    QuotaVerdict s1 = vs.get(1);
    assertThat(s1.getVerdict()).isEqualTo(Verdict.SHARED);
    assertThat(s1.getPreemptible()).isTrue();
    assertThat(s1.getGpus()).isEqualTo(4.0);
    QuotaVerdict q1 = vs.get(2);
    assertThat(q1.getVerdict()).isEqualTo(Verdict.QUEUED);
    assertThat(q1.getReason()).isEqualTo("borrowing cap of acme/search reached");
    assertThat(q1.getUnblockHint()).isEqualTo("2 GPUs of borrowing released under acme/search");
    assertThat(q1.getTrace()).extracting(t -> t.getRule()).contains("Q3 borrowing cap");

    List<QuotaState> states = q.read(TopicCatalogue.QUOTA_STATE);
    QuotaState training = states.stream()
        .filter(s -> s.getQueue().equals("acme/search/ranking/training")).reduce((a, b) -> b)
        .orElseThrow();
    assertThat(training.getUsedGuaranteedGpus()).isEqualTo(4.0);
    assertThat(training.getUsedBorrowedGpus()).isEqualTo(4.0);
    assertThat(training.getTenant()).isEqualTo("search");
  }

  @Test
  void shouldRejectAPreemptionRightTheDefinitionDoesNotGrantAndGrantAnEntitledOne() {
    JobSubmitted research = JobSubmissions.training("r1").tenant("research", "llm").gpus(2)
        .at(T0).build();
    research.setPreemptionRight(true);
    q.submit(research);
    q.submit(JobSubmissions.onlineInference("inf1", "search-api", 0.5).at(T0.plusSeconds(1))
        .build());
    q.tick(T0.plusSeconds(2));

    List<QuotaVerdict> vs = q.read(TopicCatalogue.QUOTA_VERDICTS);
    QuotaVerdict r1 = vs.stream().filter(v -> v.getJobId().equals("r1")).findFirst().orElseThrow();
    QuotaVerdict inf1 = vs.stream().filter(v -> v.getJobId().equals("inf1")).findFirst()
        .orElseThrow();
    assertThat(r1.getVerdict()).isEqualTo(Verdict.REJECTED);
    assertThat(r1.getReason()).isEqualTo("preemption right not entitled");
    assertThat(r1.getTrace()).extracting(t -> t.getRule()).contains("W4 preemption entitlement");
    assertThat(inf1.getVerdict()).isEqualTo(Verdict.GUARANTEED);
    assertThat(inf1.getPreemptionRightGranted()).isTrue();
    assertThat(inf1.getGpus()).isEqualTo(0.5);
  }

  @Test
  void shouldKeepAPreemptedJobOffBorrowedCapacityDuringItsCooldown() {
    q.submit(training("g1", 4, T0));
    q.submit(training("s1", 4, T0.plusSeconds(60)));
    q.tick(T0.plusSeconds(61));
    q.lifecycle("s1", LifecycleType.STARTED, T0.plusSeconds(300));
    q.tick(T0.plusSeconds(301));
    q.read(TopicCatalogue.QUOTA_VERDICTS);

    Instant preemptedAt = T0.plusSeconds(600);
    q.lifecycle("s1", LifecycleType.PREEMPTED, preemptedAt);
    q.tick(preemptedAt.plusSeconds(1));
    QuotaVerdict cooling = last("s1");
    assertThat(cooling.getVerdict()).isEqualTo(Verdict.QUEUED);
    assertThat(cooling.getReason()).isEqualTo("cooldown until " + preemptedAt.plus(
        Duration.ofMinutes(30)));
    assertThat(cooling.getDecidedAt()).isEqualTo(preemptedAt.plusSeconds(1));

    q.tick(preemptedAt.plus(Duration.ofMinutes(29)));
    assertThat(q.<QuotaVerdict>read(TopicCatalogue.QUOTA_VERDICTS)).isEmpty(); // still cooling

    q.tick(preemptedAt.plus(Duration.ofMinutes(30)));
    QuotaVerdict after = last("s1");
    assertThat(after.getVerdict()).isEqualTo(Verdict.SHARED);
    assertThat(after.getTrace()).extracting(t -> t.getRule() + ":" + t.getOutcome())
        .contains("P3 cooldown:over");
  }

  @Test
  void shouldReleaseQuotaOnCompletionAndAdmitTheNextWaitingJob() {
    q.submit(training("g1", 4, T0));
    q.submit(training("s1", 4, T0.plusSeconds(60)));
    q.submit(training("q1", 2, T0.plusSeconds(120)));
    q.tick(T0.plusSeconds(121));
    q.lifecycle("g1", LifecycleType.STARTED, T0.plusSeconds(180));
    q.tick(T0.plusSeconds(181));
    q.read(TopicCatalogue.QUOTA_VERDICTS);
    q.read(TopicCatalogue.QUOTA_STATE);

    q.lifecycle("g1", LifecycleType.COMPLETED, T0.plus(Duration.ofMinutes(30)));
    q.tick(T0.plus(Duration.ofMinutes(30)).plusSeconds(1));

    QuotaVerdict q1 = last("q1");
    assertThat(q1.getVerdict()).isEqualTo(Verdict.GUARANTEED);
    // one state per queue per tick, as it stands after the release and the admission
    List<QuotaState> states = q.read(TopicCatalogue.QUOTA_STATE);
    assertThat(states).singleElement().satisfies(st -> {
      assertThat(st.getUsedGuaranteedGpus()).isEqualTo(2.0);
      assertThat(st.getFairShareUsage()).isGreaterThan(0.0); // g1's 28 minutes count (Q4)
    });
  }

  @Test
  void shouldMeterPerSecondSplitAtTheSlotBoundaryIntoBillingUsage() {
    q.submit(training("g1", 4, T0));
    q.tick(T0.plusSeconds(1));
    q.lifecycle("g1", LifecycleType.STARTED, Instant.parse("2026-11-02T09:30:00Z"));
    q.lifecycle("g1", LifecycleType.COMPLETED, Instant.parse("2026-11-02T10:30:00Z"));
    q.tick(Instant.parse("2026-11-02T10:30:01Z"));

    List<BillingUsage> bill = q.read(TopicCatalogue.BILLING_USAGE);
    assertThat(bill).hasSize(2);
    // 06:00–10:00 is PEAK (1.2), 10:00–18:00 FLAT (0.6); guaranteed use pays the 30% reserved discount.
    assertThat(bill.get(0).getSlotClass()).isEqualTo(SlotClass.PEAK);
    assertThat(bill.get(0).getTo()).isEqualTo(Instant.parse("2026-11-02T10:00:00Z"));
    assertThat(bill.get(0).getPricing()).isEqualTo(PricingKind.RESERVED);
    assertThat(bill.get(0).getPricePerGpuHour()).isEqualTo(0.84);
    assertThat(bill.get(0).getGpuSeconds()).isEqualTo(4 * 1800.0);
    assertThat(bill.get(0).getAmount()).isEqualTo(1.68);
    assertThat(bill.get(1).getSlotClass()).isEqualTo(SlotClass.FLAT);
    assertThat(bill.get(1).getAmount()).isEqualTo(0.84);
    assertThat(bill.get(1).getQueue()).isEqualTo("acme/search/ranking/training");

    BillingDayRecord day = q.stored(QuotaTopology.BILLING_STORE, "search/2026-11-02",
        BillingDayRecord.class);
    assertThat(day.getAmountMicros()).isEqualTo(2_520_000L);
    assertThat(day.getMicroGpuSeconds()).isEqualTo(14_400_000_000L);
    assertThat(day.getAmountMicrosBySlot()).containsOnlyKeys("PEAK", "FLAT");
  }

  @Test
  void shouldBillALongRunEveryMeteringIntervalOnClockTicks() {
    q.submit(training("g1", 4, T0));
    q.tick(T0.plusSeconds(1));
    q.lifecycle("g1", LifecycleType.STARTED, Instant.parse("2026-11-02T10:00:00Z"));
    q.tick(Instant.parse("2026-11-02T10:00:01Z"));
    q.tick(Instant.parse("2026-11-02T10:59:59Z"));
    assertThat(q.<BillingUsage>read(TopicCatalogue.BILLING_USAGE)).isEmpty();
    q.tick(Instant.parse("2026-11-02T11:00:00Z"));
    List<BillingUsage> bill = q.read(TopicCatalogue.BILLING_USAGE);
    assertThat(bill).singleElement().satisfies(b -> {
      assertThat(b.getFrom()).isEqualTo(Instant.parse("2026-11-02T10:00:00Z"));
      assertThat(b.getTo()).isEqualTo(Instant.parse("2026-11-02T11:00:00Z"));
    });
  }

  @Test
  void shouldPublishAGuaranteeChangeWhenAServicesPeakRises() {
    q.peak("search-api", 10, T0);
    q.peak("search-api", 20, T0.plusSeconds(900));
    q.peak("search-api", 20, T0.plusSeconds(1800));
    q.tick(T0.plusSeconds(1801));

    List<QuotaChange> changes = q.<QuotaChange>read(QuotaTopics.CHANGES).stream()
        .filter(c -> c.getKind() == QuotaChangeKind.GUARANTEE_CHANGED).toList();
    assertThat(changes).hasSize(2);
    assertThat(changes.get(0).getOldGuaranteeGpus()).isEqualTo(0.0);
    assertThat(changes.get(0).getNewGuaranteeGpus()).isEqualTo(7.0);
    assertThat(changes.get(0).getOldPeakGpus()).isNull();
    QuotaChange rise = changes.get(1);
    assertThat(rise.getSubject()).isEqualTo("search-api");
    assertThat(rise.getOldGuaranteeGpus()).isEqualTo(7.0);
    assertThat(rise.getNewGuaranteeGpus()).isEqualTo(14.0);
    assertThat(rise.getReason()).contains("peak rose 10 → 20: guarantee 7 → 14")
        .contains("70% of the historical peak");
    assertThat(rise.getAt()).as("the tick that applied it").isEqualTo(T0.plusSeconds(1801));
  }

  @Test
  void shouldRecommendShrinkingAJobThatStaysUnderHalfUtilisationForAnHour() {
    JobSubmitted job = training("idle1", 4, T0);
    job.setExpectedDurationSeconds(10 * 3600L);
    q.submit(job);
    q.tick(T0.plusSeconds(1));
    q.lifecycle("idle1", LifecycleType.STARTED, T0.plusSeconds(1));
    for (int minute = 0; minute <= 60; minute++) {
      for (int gpu = 0; gpu < 4; gpu++) {
        q.utilisation("idle1", gpu, 30, T0.plusSeconds(2).plus(Duration.ofMinutes(minute)));
      }
    }
    q.tick(T0.plus(Duration.ofMinutes(60)).plusSeconds(3));
    q.tick(T0.plus(Duration.ofMinutes(60)).plusSeconds(10));

    List<QuotaReclaim> reclaims = q.read(QuotaTopics.RECLAIMS);
    assertThat(reclaims).singleElement().satisfies(r -> {
      assertThat(r.getAction()).isEqualTo(ReclaimAction.SHRINK);
      assertThat(r.getCurrentGpus()).isEqualTo(4);
      assertThat(r.getRecommendedGpus()).isEqualTo(2);
      assertThat(r.getPeakUtilisation()).isEqualTo(0.3);
      assertThat(r.getEtaBeforeSeconds()).isEqualTo(9 * 3600L - 2);
      assertThat(r.getEtaAfterSeconds()).isEqualTo(Math.round((9 * 3600 - 2) * 1.5));
      assertThat(r.getReason()).contains("shrink 4 → 2");
      assertThat(r.getDecidedAt()).isEqualTo(T0.plus(Duration.ofMinutes(60)).plusSeconds(3));
      assertThat(r.getBeneficiaryJobId()).isNull();
      assertThat(r.getBorrowers()).isEmpty();
    });
  }

  /** An hour of a 4-GPU job at 30%, its GPUs sent one by one or as one batch per minute. */
  private List<QuotaReclaim> hourAtThirtyPercent(QuotaScenario s, boolean batched) {
    JobSubmitted job = training("idle1", 4, T0);
    job.setExpectedDurationSeconds(10 * 3600L);
    s.submit(job);
    s.tick(T0.plusSeconds(1));
    s.lifecycle("idle1", LifecycleType.STARTED, T0.plusSeconds(1));
    for (int minute = 0; minute <= 60; minute++) {
      Instant at = T0.plusSeconds(2).plus(Duration.ofMinutes(minute));
      if (batched) {
        s.utilisationBatch("idle1", 4, 30, at);
      } else {
        for (int gpu = 0; gpu < 4; gpu++) {
          s.utilisation("idle1", gpu, 30, at);
        }
      }
      if (minute % 10 == 5) {
        s.tick(at.plusSeconds(1)); // some scrapes drained mid-way, the rest by the last ticks
      }
    }
    s.tick(T0.plus(Duration.ofMinutes(60)).plusSeconds(3));
    s.tick(T0.plus(Duration.ofMinutes(60)).plusSeconds(10));
    return s.read(QuotaTopics.RECLAIMS);
  }

  @Test
  void shouldRecommendTheSameShrinkFromABatchAsFromItsSamples() {
    List<QuotaReclaim> samples = hourAtThirtyPercent(q, false);
    List<QuotaReclaim> batches;
    try (QuotaScenario other = new QuotaScenario(registry.url())) {
      batches = hourAtThirtyPercent(other, true);
      assertThat(other.<DeadLetter>read(TopicCatalogue.GPU_TELEMETRY_BATCHES + ".dlq")).isEmpty();
    }
    assertThat(samples).singleElement()
        .satisfies(r -> assertThat(r.getAction()).isEqualTo(ReclaimAction.SHRINK));
    assertThat(batches).isEqualTo(samples);
  }

  @Test
  void shouldDeadLetterABadBatchWithTheReasonAndKeepDeciding() {
    q.utilisationBatch("idle1", 65, 30, T0); // more GPUs than a node holds
    q.raw(TopicCatalogue.GPU_TELEMETRY_BATCHES, "n1", "garbage".getBytes(), T0);
    List<DeadLetter> letters = q.read(TopicCatalogue.GPU_TELEMETRY_BATCHES + ".dlq");
    assertThat(letters).hasSize(2);
    assertThat(letters.get(0).getError()).contains("65 GPUs, a node has at most 64");
    assertThat(letters.get(1).getErrorClass()).isEqualTo("DESERIALIZATION");
    q.submit(training("after", 1, T0.plusSeconds(5)));
    q.tick(T0.plusSeconds(6));
    assertThat(q.<QuotaVerdict>read(TopicCatalogue.QUOTA_VERDICTS)).isNotEmpty();
  }

  @Test
  void shouldNotRecommendAnythingWhileTheWindowIsNotFullyObserved() {
    q.submit(training("idle2", 4, T0));
    q.tick(T0.plusSeconds(1));
    q.lifecycle("idle2", LifecycleType.STARTED, T0.plusSeconds(1));
    for (int minute = 30; minute <= 60; minute++) {
      q.utilisation("idle2", 0, 1, T0.plus(Duration.ofMinutes(minute)));
    }
    q.tick(T0.plus(Duration.ofMinutes(60)).plusSeconds(1));
    assertThat(q.<QuotaReclaim>read(QuotaTopics.RECLAIMS)).isEmpty();
  }

  @Test
  void shouldDeadLetterAnInvalidDefinitionAndKeepTheOldOneInForce() {
    q.submit(training("g1", 4, T0)); // the bootstrap definition test-1 is in force
    String overSubdivided = QuotaScenario.DEFINITION.replace("test-1", "test-2")
        .replace("{path: acme/search/ranking, kind: TEAM, guaranteedGpus: 8}",
            "{path: acme/search/ranking, kind: TEAM, guaranteedGpus: 9}");
    q.definition("test-2", overSubdivided, T0.plusSeconds(60));
    q.definition("test-3", "version: [not, a, string", T0.plusSeconds(61));
    q.submit(training("g2", 2, T0.plusSeconds(120)));
    q.tick(T0.plusSeconds(121));

    List<DeadLetter> letters = q.read(QuotaTopics.CONFIG + ".dlq");
    assertThat(letters).hasSize(2);
    assertThat(letters.get(0).getErrorClass()).isEqualTo("VALIDATION");
    assertThat(letters.get(0).getError())
        .contains("quota definition test-2 refused, the previous one stays in force")
        .contains("acme/search: children's floors 9 exceed this node's floor 8");
    assertThat(letters.get(1).getError()).contains("not a quota definition document");
    assertThat(last("g2").getPolicyVersion()).isEqualTo("quota-rules-2/test-1");
    assertThat(q.<QuotaChange>read(QuotaTopics.CHANGES)).extracting(QuotaChange::getNewVersion)
        .containsExactly("test-1");
  }

  @Test
  void shouldApplyANewDefinitionFromTheConfigTopicAndAuditTheChange() {
    q.submit(training("g1", 4, T0));
    q.definition("test-2", QuotaScenario.DEFINITION.replace("test-1", "test-2")
        .replace("fleetGpus: 16", "fleetGpus: 32"), T0.plusSeconds(60));
    q.submit(training("g2", 2, T0.plusSeconds(120)));
    q.tick(T0.plusSeconds(121));

    List<QuotaChange> changes = q.read(QuotaTopics.CHANGES);
    assertThat(changes).extracting(QuotaChange::getKind).containsOnly(
        QuotaChangeKind.DEFINITION_APPLIED);
    assertThat(changes.get(0).getSource()).isEqualTo("file:test-definition");
    assertThat(changes.get(1).getOldVersion()).isEqualTo("test-1");
    assertThat(changes.get(1).getNewVersion()).isEqualTo("test-2");
    assertThat(changes.get(1).getSource()).isEqualTo("quota.config by ops");
    assertThat(changes.get(1).getReason()).contains("fleet 32.0 GPUs");
    assertThat(last("g2").getPolicyVersion()).isEqualTo("quota-rules-2/test-2");
  }

  @Test
  void shouldRefuseAForgedQuotaDocumentAndKeepTheDefinitionInForce() {
    q.submit(training("g1", 4, T0));
    // 1. On an open broker someone writes a definition doubling the fleet: once without a stamp,
    //    once stamped as a submitter.
    String doubled = QuotaScenario.DEFINITION.replace("test-1", "forged")
        .replace("fleetGpus: 16", "fleetGpus: 32");
    q.definitionAs(null, "forged", doubled, T0.plusSeconds(60));
    q.definitionAs("tideline-submitter", "forged", doubled, T0.plusSeconds(61));
    q.submit(training("g2", 2, T0.plusSeconds(120)));
    q.tick(T0.plusSeconds(121));

    List<DeadLetter> letters = q.read(QuotaTopics.CONFIG + ".dlq");
    assertThat(letters).extracting(DeadLetter::getErrorClass)
        .containsExactly("PROVENANCE", "PROVENANCE");
    assertThat(letters).extracting(DeadLetter::getError).containsExactly( // the rule's words
        Provenance.DEFAULT.refusal(QuotaTopics.CONFIG, (String) null),
        Provenance.DEFAULT.refusal(QuotaTopics.CONFIG, "tideline-submitter"));
    assertThat(q.<QuotaChange>read(QuotaTopics.CHANGES)).extracting(QuotaChange::getNewVersion)
        .containsExactly("test-1");
    assertThat(last("g2").getPolicyVersion()).isEqualTo("quota-rules-2/test-1");
  }

  @Test
  void shouldRejectAnUnknownTenantWithTheReasonAndKeepDeciding() {
    q.submit(JobSubmissions.training("games-1").tenant("games", "arcade").gpus(1).at(T0).build());
    q.submit(training("g1", 1, T0.plusSeconds(1)));
    q.tick(T0.plusSeconds(2));

    List<QuotaVerdict> vs = q.read(TopicCatalogue.QUOTA_VERDICTS);
    assertThat(vs).extracting(QuotaVerdict::getJobId, QuotaVerdict::getVerdict,
        QuotaVerdict::getReason).containsExactly(
            org.assertj.core.groups.Tuple.tuple("games-1", Verdict.REJECTED,
                "unknown tenant 'games'"),
            org.assertj.core.groups.Tuple.tuple("g1", Verdict.GUARANTEED,
                "within the guarantee of acme/search/ranking/training: non-preemptible"));
  }

  @Test
  void shouldDeadLetterGarbageSubmissionsAndKeepDeciding() {
    q.raw(TopicCatalogue.JOBS_SUBMITTED, "bad", "not avro".getBytes(StandardCharsets.UTF_8), T0);
    q.submit(training("g1", 4, T0.plusSeconds(1)));
    q.tick(T0.plusSeconds(2));

    List<DeadLetter> letters = q.read(TopicCatalogue.JOBS_SUBMITTED + ".dlq");
    assertThat(letters).singleElement().satisfies(d -> {
      assertThat(d.getErrorClass()).isEqualTo("DESERIALIZATION");
      assertThat(d.getService()).isEqualTo("quota-svc");
      assertThat(StandardCharsets.UTF_8.decode(d.getOriginalValue()).toString())
          .isEqualTo("not avro");
    });
    assertThat(last("g1").getVerdict()).isEqualTo(Verdict.GUARANTEED);
  }

  @Test
  void shouldNotDecideTwiceForAReplayedSubmission() {
    q.submit(training("g1", 4, T0));
    q.tick(T0.plusSeconds(1));
    q.submit(training("g1", 4, T0));
    q.tick(T0.plusSeconds(2));

    assertThat(q.<QuotaVerdict>read(TopicCatalogue.QUOTA_VERDICTS)).hasSize(1);
    assertThat(q.<DeadLetter>read(TopicCatalogue.JOBS_SUBMITTED + ".dlq")).isEmpty();
  }

  @Test
  void shouldDeadLetterAResubmissionWithOtherContentAsAConflictAndKeepTheAdmittedSize() {
    // issue #16 finding 4: job X with 1 GPU, then job X again with 64 GPUs
    q.submit(training("x", 1, T0));
    q.tick(T0.plusSeconds(1));
    JobSubmitted bigger = JobSubmissions.training("x").gpus(64).gang(64, 8).at(T0).build();
    q.submit(bigger);
    q.submit(training("after", 1, T0.plusSeconds(2)));
    q.tick(T0.plusSeconds(3));

    List<DeadLetter> letters = q.read(TopicCatalogue.JOBS_SUBMITTED + ".dlq");
    assertThat(letters).singleElement().satisfies(d -> {
      assertThat(d.getErrorClass()).isEqualTo("VALIDATION");
      assertThat(d.getError()).contains("job id x is already known with other content")
          .contains("gpuCount: known 1, resubmitted 64");
      assertThat(d.getOriginalTopic()).isEqualTo(TopicCatalogue.JOBS_SUBMITTED);
      assertThat(StandardCharsets.UTF_8.decode(d.getOriginalKey()).toString()).isEqualTo("x");
    });
    List<QuotaVerdict> vs = q.read(TopicCatalogue.QUOTA_VERDICTS);
    assertThat(vs).extracting(QuotaVerdict::getJobId, QuotaVerdict::getGpus).containsExactly(
        org.assertj.core.groups.Tuple.tuple("x", 1.0),
        org.assertj.core.groups.Tuple.tuple("after", 1.0));
  }

  @Test
  void shouldDecideOnlyOnTheFirstTickAfterTheInput() {
    q.submit(training("g1", 4, T0));
    q.tick(T0);
    assertThat(q.<QuotaVerdict>read(TopicCatalogue.QUOTA_VERDICTS)).isEmpty();

    q.tick(T0.plusMillis(1));
    assertThat(q.<QuotaVerdict>read(TopicCatalogue.QUOTA_VERDICTS)).singleElement()
        .satisfies(v -> assertThat(v.getDecidedAt()).isEqualTo(T0.plusMillis(1)));
  }

  @Test
  void shouldDeadLetterAnInputTimedFarAheadOfTheClockSoItNeverMovesAnything() {
    q.tick(T0);
    q.submit(training("far", 1, Instant.parse("2300-01-01T00:00:00Z")));
    q.submit(training("near", 1, T0.plusSeconds(1)));
    q.tick(T0.plusSeconds(2));

    assertThat(q.<DeadLetter>read(TopicCatalogue.JOBS_SUBMITTED + ".dlq")).singleElement()
        .satisfies(d -> assertThat(d.getError()).contains("2300-01-01T00:00:00Z is more than"));
    assertThat(q.<QuotaVerdict>read(TopicCatalogue.QUOTA_VERDICTS)).singleElement()
        .satisfies(v -> {
          assertThat(v.getJobId()).isEqualTo("near");
          assertThat(v.getDecidedAt()).isEqualTo(T0.plusSeconds(2));
        });
  }

  /** The scenario's hierarchy with search's training floor lent to borrowers. */
  static final String LENDING = """
      version: "lend-1"
      fleetGpus: 16
      nodes:
        - {path: acme, kind: ORGANISATION, guaranteedGpus: 12}
        - {path: acme/search, kind: BUSINESS_LINE, guaranteedGpus: 8}
        - {path: acme/search/ranking, kind: TEAM, guaranteedGpus: 8}
        - {path: acme/search/ranking/inference, kind: QUEUE, lane: INFERENCE, guaranteedGpus: 4,
           lendLimitGpus: 0}
        - {path: acme/search/ranking/training, kind: QUEUE, lane: TRAINING, guaranteedGpus: 4}
        - {path: acme/research, kind: BUSINESS_LINE, guaranteedGpus: 4, preemptionGrants: []}
        - {path: acme/research/llm, kind: TEAM, guaranteedGpus: 4}
        - {path: acme/research/llm/training, kind: QUEUE, lane: TRAINING, guaranteedGpus: 4,
           lendLimitGpus: 0}
      """;

  @Test
  void shouldRequestTheRunningBorrowersOfAGuaranteeOnQuotaReclaimsAndReleaseThemOnPreempted() {
    q.close();
    q = new QuotaScenario(registry.url(), LENDING);
    // research borrows the pool and search's idle training floor: r1 4 + 4 borrowed, r2 4 borrowed
    q.submit(JobSubmissions.training("r1").tenant("research", "llm").gpus(8).at(T0).build());
    q.tick(T0.plusSeconds(1));
    q.submit(JobSubmissions.training("r2").tenant("research", "llm").gpus(4)
        .at(T0.plusSeconds(2)).build());
    q.tick(T0.plusSeconds(3));
    q.lifecycle("r1", LifecycleType.STARTED, T0.plusSeconds(4));
    q.lifecycle("r2", LifecycleType.STARTED, T0.plusSeconds(4));
    q.tick(T0.plusSeconds(5));
    assertThat(q.<QuotaVerdict>read(TopicCatalogue.QUOTA_VERDICTS))
        .extracting(QuotaVerdict::getVerdict).containsExactly(Verdict.SHARED, Verdict.SHARED);
    // search wants its training floor back
    q.submit(training("t1", 4, T0.plusSeconds(60)));
    q.tick(T0.plusSeconds(61));

    List<QuotaReclaim> reclaims = q.read(QuotaTopics.RECLAIMS);
    assertThat(reclaims).singleElement().satisfies(r -> {
      assertThat(r.getAction()).isEqualTo(ReclaimAction.GUARANTEE);
      assertThat(r.getJobId()).isEqualTo("t1");
      assertThat(r.getBeneficiaryJobId()).isEqualTo("t1");
      assertThat(r.getBorrowers()).extracting(b -> b.getJobId()).containsExactly("r2");
      assertThat(r.getReclaimId()).isEqualTo("c1/guarantee/t1/"
          + T0.plusSeconds(61).toEpochMilli());
      assertThat(r.getDecidedAt()).isEqualTo(T0.plusSeconds(61));
    });
    assertThat(q.<QuotaVerdict>read(TopicCatalogue.QUOTA_VERDICTS))
        .extracting(QuotaVerdict::getJobId).as("r2 runs on: no verdict for it yet")
        .containsExactly("t1");

    q.lifecycle("r2", LifecycleType.PREEMPTED, T0.plusSeconds(120));
    q.tick(T0.plusSeconds(121));
    assertThat(last("r2").getReason()).isEqualTo("cooldown until "
        + T0.plusSeconds(120).plus(Duration.ofMinutes(30)));
  }
}
