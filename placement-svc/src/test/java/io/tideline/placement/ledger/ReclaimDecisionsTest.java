package io.tideline.placement.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.DeadLetter;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.events.PreemptionOutcome;
import io.tideline.events.PreemptionRequest;
import io.tideline.events.PreemptionTrigger;
import io.tideline.events.ReclaimAction;
import io.tideline.events.ReservedGpuHolder;
import io.tideline.events.RuleTraceEntry;
import io.tideline.platform.deadletter.DeadLetters;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.JobSubmissions;
import io.tideline.testkit.RegistryFixture;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Placement applying preemption's reclaim decisions (issue #7): at a reservation start placement
 * names the jobs on the GPUs it reserved, applies preemption's answer only if every victim still
 * runs on the allocation the decision saw, evicts them and keeps their reserved GPUs for the
 * service; quota's idle reclaim evicts the job and frees its GPUs to the pool. Stale answers are
 * refused with the reason in a trace. Real topology ({@code TopologyTestDriver}), real registry,
 * explicit event times.
 */
class ReclaimDecisionsTest {

  static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");
  static final Instant START = Instant.parse("2026-11-02T14:15:00Z");
  @RegisterExtension static final RegistryFixture registry = new RegistryFixture();
  LedgerDriver d;

  @BeforeEach
  void driver() {
    d = new LedgerDriver(registry.url());
  }

  @AfterEach
  void close() {
    d.close();
  }

  static Instant t(int seconds) {
    return T0.plusSeconds(seconds);
  }

  static JobSubmitted training(String id, Instant at) {
    return JobSubmissions.training(id).gpus(8).gang(8, 1).at(at).build();
  }

  static PlacementDecision only(List<PlacementDecision> ds, String job, PlacementOutcome o) {
    List<PlacementDecision> m = ds.stream()
        .filter(x -> x.getJobId().equals(job) && x.getOutcome() == o).toList();
    assertThat(m).as(job + " " + o + " in " + ds.stream().map(x -> x.getJobId() + ":"
        + x.getOutcome()).toList()).hasSize(1);
    return m.get(0);
  }

  static RuleTraceEntry line(PlacementDecision p, String rule) {
    return p.getTrace().stream().filter(e -> e.getRule().equals(rule)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + rule + " line in " + p.getTrace()));
  }

  /** Bound ledger version of the running job's PLACED decision. */
  long placedAt(List<PlacementDecision> ds, String job) {
    return only(ds, job, PlacementOutcome.PLACED).getLedgerVersion();
  }

  @Nested
  class AtAReservationStart {

    /**
     * n01 runs train-a, n02 runs train-b (both preemptible); the 8 GPUs reserved for search-api
     * from 14:15 are n01's (no idle GPU: placement picks GPUs held only by preemptible work).
     */
    @BeforeEach
    void twoBusyNodesAndAReservation() {
      d.nodes(2, t(0));
      d.admit(training("train-a", t(1)), t(1));
      d.admit(training("train-b", t(2)), t(2));
      d.reserve("r-search", "search-api", 8, START, START.plusSeconds(3600), t(5));
      d.decisions();
    }

    PreemptionRequest started() {
      d.tick(START);
      List<PreemptionRequest> reqs = d.preemptionRequests();
      assertThat(reqs).hasSize(1);
      return reqs.get(0);
    }

    @Test
    void shouldAskPreemptionAboutTheJobsOnTheReservedGpusExactlyWhenItStartsAndOnce() {
      d.tick(START.minusSeconds(1));
      assertThat(d.preemptionRequests()).isEmpty();

      PreemptionRequest r = started();

      assertThat(r.getTrigger()).isEqualTo(PreemptionTrigger.RESERVATION_START);
      assertThat(r.getPreemptorJobId()).isEqualTo("reservation/r-search");
      assertThat(r.getReservationId()).isEqualTo("r-search");
      assertThat(r.getServiceId()).isEqualTo("search-api");
      assertThat(r.getHolders()).containsExactly(new ReservedGpuHolder("train-a", 8.0));
      assertThat(r.getShape().getGpuCount()).isEqualTo(8);
      assertThat(r.getRequestedAt()).isEqualTo(START);
      PlacementDecision asked = only(d.decisions(), "reservation/r-search",
          PlacementOutcome.PREEMPTION_REQUESTED);
      assertThat(r.getLedgerVersion()).isEqualTo(asked.getLedgerVersion());
      assertThat(line(asked, "F2 reservation start").getDetail())
          .contains("8.00 of its 8 GPU(s) held by [train-a]");

      d.tick(START.plusSeconds(60));
      assertThat(d.preemptionRequests()).as("asked once per reservation").isEmpty();
    }

    @Test
    void shouldEvictTheVictimAndKeepItsReservedGpusForTheServiceWhenItStops() {
      PreemptionRequest r = started();
      d.decisions();

      d.reclaimDecision("RESERVATION_START", r.getRequestId(), r.getPreemptorJobId(),
          r.getLedgerVersion(), PreemptionOutcome.PREEMPT, List.of("train-a"), t(901));

      List<Eviction> ev = d.evictions();
      assertThat(ev).hasSize(1);
      assertThat(ev.get(0).getJobId()).isEqualTo("train-a");
      assertThat(ev.get(0).getKind()).isEqualTo(EvictionKind.PREEMPT);
      assertThat(ev.get(0).getDecisionId()).isEqualTo(r.getRequestId() + "/decision");
      assertThat(ev.get(0).getReason()).contains("reservation r-search of search-api");

      d.lifecycle("train-a", LifecycleType.PREEMPTED, t(960));
      List<PlacementDecision> ds = d.decisions();
      PlacementDecision released = only(ds, "train-a", PlacementOutcome.RELEASED);
      assertThat(line(released, "F2 reservation start").getDetail())
          .contains("evicted by " + r.getRequestId() + "/decision")
          .contains("8.00 GPU(s) held for service search-api (reservation r-search), 0.00 back "
              + "to the pool");
      assertThat(ds).as("its GPUs are the service's now, not the pool's")
          .noneMatch(x -> x.getOutcome() == PlacementOutcome.PLACED);

      d.admit(JobSubmissions.onlineInference("search-1", "search-api", 1.0).gpus(8).gang(8, 1)
          .at(t(970)).build(), t(970));
      assertThat(only(d.decisions(), "search-1", PlacementOutcome.PLACED).getAssignments())
          .allSatisfy(a -> assertThat(a.getNodeId()).isEqualTo("n01"));
    }

    @Test
    void shouldRefuseTheSameAnswerTwice() {
      PreemptionRequest r = started();
      d.reclaimDecision("RESERVATION_START", r.getRequestId(), r.getPreemptorJobId(),
          r.getLedgerVersion(), PreemptionOutcome.PREEMPT, List.of("train-a"), t(901));
      assertThat(d.evictions()).hasSize(1);
      d.decisions();

      d.reclaimDecision("RESERVATION_START", r.getRequestId(), r.getPreemptorJobId(),
          r.getLedgerVersion(), PreemptionOutcome.PREEMPT, List.of("train-a"), t(902));

      assertThat(d.evictions()).isEmpty();
      PlacementDecision refused = only(d.decisions(), "reservation/r-search",
          PlacementOutcome.QUEUED);
      assertThat(line(refused, "P re-check").getOutcome()).isEqualTo("not applied");
      assertThat(line(refused, "P re-check").getDetail())
          .isEqualTo("no open reservation-start request " + r.getRequestId()
              + " for reservation/r-search");
    }

    @Test
    void shouldRefuseAStaleAnswerWhoseVictimStoppedAndNotAskAgainOnceTheGpusAreFree() {
      PreemptionRequest r = started();
      d.lifecycle("train-a", LifecycleType.COMPLETED, t(905));
      d.decisions();

      d.reclaimDecision("RESERVATION_START", r.getRequestId(), r.getPreemptorJobId(),
          r.getLedgerVersion(), PreemptionOutcome.PREEMPT, List.of("train-a"), t(906));

      assertThat(d.evictions()).isEmpty();
      PlacementDecision refused = only(d.decisions(), "reservation/r-search",
          PlacementOutcome.QUEUED);
      assertThat(line(refused, "P re-check").getDetail())
          .isEqualTo("victim(s) [train-a] no longer running");
      d.tick(START.plusSeconds(60));
      assertThat(d.preemptionRequests()).as("nobody holds the reserved GPUs any more").isEmpty();
    }

    @Test
    void shouldRefuseAVictimThatHoldsNoneOfTheReservedGpus() {
      PreemptionRequest r = started();
      d.decisions();

      d.reclaimDecision("RESERVATION_START", r.getRequestId(), r.getPreemptorJobId(),
          r.getLedgerVersion(), PreemptionOutcome.PREEMPT, List.of("train-b"), t(901));

      assertThat(d.evictions()).isEmpty();
      assertThat(line(only(d.decisions(), "reservation/r-search", PlacementOutcome.QUEUED),
          "P re-check").getDetail()).isEqualTo("victim train-b holds none of reservation "
          + "r-search's GPUs");
      d.tick(START.plusSeconds(60));
      assertThat(d.preemptionRequests()).as("asked again about who holds the GPUs now")
          .singleElement().satisfies(again -> assertThat(again.getHolders())
              .containsExactly(new ReservedGpuHolder("train-a", 8.0)));
    }

    @Test
    void shouldEvictNobodyWhenPreemptionRefusesAndNotAskAgain() {
      PreemptionRequest r = started();
      d.decisions();

      d.reclaimDecision("RESERVATION_START", r.getRequestId(), r.getPreemptorJobId(),
          r.getLedgerVersion(), PreemptionOutcome.REFUSED, List.of(), t(901));
      d.tick(START.plusSeconds(60));

      assertThat(d.evictions()).isEmpty();
      assertThat(d.preemptionRequests()).isEmpty();
    }
  }

  @Nested
  class OnAnIdleReclaim {

    /** train-a holds n01 idle; train-w waits for a whole node. */
    @BeforeEach
    void oneIdleJobAndOneWaiting() {
      d.nodes(1, t(0));
      d.admit(training("train-a", t(1)), t(1));
      d.admit(training("train-w", t(2)), t(2));
    }

    @Test
    void shouldEvictTheIdleJobAndGiveItsGpusToThePool() {
      long bound = placedAt(d.decisions(), "train-a");
      d.quotaReclaim("train-a", ReclaimAction.RECLAIM, List.of(), 0, t(30));

      d.reclaimDecision("IDLE_RECLAIM", "c1/idle-reclaim/train-a/1", "idle-reclaim/train-a",
          bound, PreemptionOutcome.PREEMPT, List.of("train-a"), t(60));

      List<Eviction> ev = d.evictions();
      assertThat(ev).hasSize(1);
      assertThat(ev.get(0).getJobId()).isEqualTo("train-a");
      assertThat(ev.get(0).getKind()).isEqualTo(EvictionKind.RECLAIM);
      assertThat(ev.get(0).getDecisionId()).isEqualTo("c1/idle-reclaim/train-a/1/decision");
      assertThat(ev.get(0).getReason()).startsWith("idle reclaim (Q7)");

      d.lifecycle("train-a", LifecycleType.PREEMPTED, t(120));
      List<PlacementDecision> ds = d.decisions();
      assertThat(line(only(ds, "train-a", PlacementOutcome.RELEASED), "Q7 idle reclaim")
          .getDetail()).isEqualTo("PREEMPTED (reclaimed by c1/idle-reclaim/train-a/1/decision; "
          + "not queued again): 8.00 GPU(s) back to the pool");
      assertThat(only(ds, "train-w", PlacementOutcome.PLACED).getAssignments()).hasSize(8);
      assertThat(ds).noneMatch(x -> x.getJobId().equals("train-a")
          && x.getOutcome() != PlacementOutcome.RELEASED);
    }

    /**
     * Issue #18 point 5 in the kernel: an eviction only follows a decision answering a request
     * placement issued itself; this one is stamped by the owner, so only the kernel stands in
     * its way.
     */
    @Test
    void shouldRefuseAnUnplaceableDecisionAnsweringARequestPlacementNeverIssued() {
      long bound = placedAt(d.decisions(), "train-a");

      d.preemption("c1/preempt/train-w/v999", "train-w", bound, List.of("train-a"), t(60));

      assertThat(d.evictions()).isEmpty();
      RuleTraceEntry why = line(only(d.decisions(), "train-w", PlacementOutcome.QUEUED),
          "P re-check");
      assertThat(why.getOutcome()).isEqualTo("not applied");
      assertThat(why.getDetail())
          .isEqualTo("no open preemption request c1/preempt/train-w/v999 for train-w");
    }

    /**
     * Issue #18 point 5, last clause (ADR 0029): a decision stamped by preemption-svc itself — a
     * compromised or buggy preemption — naming a job quota never named evicts nothing; it waits
     * for quota's reclaim its configured time and is refused with the reason.
     */
    @Test
    void shouldEvictNothingOnAStampedDecisionNamingAVictimQuotaNeverNamed() {
      long bound = placedAt(d.decisions(), "train-a");

      d.reclaimDecision("IDLE_RECLAIM", "c1/idle-reclaim/train-a/1", "idle-reclaim/train-a",
          bound, PreemptionOutcome.PREEMPT, List.of("train-a"), t(60));
      assertThat(d.evictions()).isEmpty();
      d.tick(t(60).plus(java.time.Duration.ofMinutes(2)));

      assertThat(d.evictions()).isEmpty();
      assertThat(d.deadLetters(TopicCatalogue.PREEMPTION_DECISIONS)).isEmpty();
      RuleTraceEntry why = line(only(d.decisions(), "idle-reclaim/train-a",
          PlacementOutcome.QUEUED), "P re-check");
      assertThat(why.getOutcome()).isEqualTo("not applied");
      assertThat(why.getDetail()).startsWith("victim(s) [train-a] not named by quota's reclaim");
    }

    /** A restart restores quota's namings and the parked answers exactly (the store's tables). */
    @Test
    void shouldRestoreTheJobsQuotaNamedAndTheAnswersWaitingForQuota() {
      long bound = placedAt(d.decisions(), "train-a");
      d.quotaReclaim("train-a", ReclaimAction.RECLAIM, List.of(), 0, t(30));
      d.reclaimDecision("SHRINK", "c1/shrink/train-a/1", "shrink/train-a", bound,
          PreemptionOutcome.PREEMPT, List.of("train-a"), t(60));

      io.tideline.core.scheduling.PlacementState s = d.restored();

      assertThat(s.named().get("RECLAIM/train-a")).isEqualTo(
          new io.tideline.core.scheduling.ReclaimNamed("train-a",
              io.tideline.core.scheduling.PlacementInput.Reclaim.Action.RECLAIM, "", 0, t(30)));
      assertThat(s.parked().get("c1/shrink/train-a/1/decision")).satisfies(a -> {
        assertThat(a.trigger()).isEqualTo(
            io.tideline.core.scheduling.PlacementInput.PreemptionAnswer.Trigger.SHRINK);
        assertThat(a.victims()).extracting(v -> v.jobId()).containsExactly("train-a");
        assertThat(a.decidedAt()).isEqualTo(t(60));
        assertThat(a.ledgerVersion()).isEqualTo(bound);
      });
    }

    /** Quota's reclaim travels on its own topic: a decision that overtook it waits for it. */
    @Test
    void shouldApplyADecisionThatOvertookQuotasReclaimOnceTheReclaimArrives() {
      long bound = placedAt(d.decisions(), "train-a");

      d.reclaimDecision("IDLE_RECLAIM", "c1/idle-reclaim/train-a/1", "idle-reclaim/train-a",
          bound, PreemptionOutcome.PREEMPT, List.of("train-a"), t(60));
      assertThat(d.evictions()).isEmpty();
      d.quotaReclaim("train-a", ReclaimAction.RECLAIM, List.of(), 0, t(59));
      d.tick(t(61));

      assertThat(d.evictions()).extracting(Eviction::getDecisionId)
          .containsExactly("c1/idle-reclaim/train-a/1/decision");
    }

    /** Issue #18 point 5: the forged decision of the issue, on an open broker (ADR 0029). */
    @Test
    void shouldDeadLetterAForgedDecisionWithoutProvenanceAndEvictNothing() {
      long bound = placedAt(d.decisions(), "train-a");

      d.reclaimDecisionAs(null, "IDLE_RECLAIM", "c1/idle-reclaim/train-a/1",
          "idle-reclaim/train-a", bound + 1_000_000, PreemptionOutcome.PREEMPT, List.of("train-a"),
          t(60));

      assertThat(d.evictions()).isEmpty();
      List<DeadLetter> letters = d.deadLetters(TopicCatalogue.PREEMPTION_DECISIONS);
      assertThat(letters).singleElement().satisfies(l -> {
        assertThat(l.getErrorClass()).isEqualTo(DeadLetters.PROVENANCE);
        assertThat(l.getError()).contains("expected preemption-svc, found none");
      });
    }

    @Test
    void shouldDeadLetterADecisionStampedByAnotherPrincipalAndEvictNothing() {
      long bound = placedAt(d.decisions(), "train-a");

      d.reclaimDecisionAs("tideline-submitter", "IDLE_RECLAIM", "c1/idle-reclaim/train-a/1",
          "idle-reclaim/train-a", bound, PreemptionOutcome.PREEMPT, List.of("train-a"), t(60));

      assertThat(d.evictions()).isEmpty();
      assertThat(d.deadLetters(TopicCatalogue.PREEMPTION_DECISIONS)).singleElement()
          .satisfies(l -> {
            assertThat(l.getErrorClass()).isEqualTo(DeadLetters.PROVENANCE);
            assertThat(l.getError()).contains("written by tideline-submitter")
                .contains("expected preemption-svc, found tideline-submitter");
          });
      // the owner's own decision, on quota's reclaim, is applied (control)
      d.quotaReclaim("train-a", ReclaimAction.RECLAIM, List.of(), 0, t(80));
      d.reclaimDecision("IDLE_RECLAIM", "c1/idle-reclaim/train-a/1", "idle-reclaim/train-a",
          bound, PreemptionOutcome.PREEMPT, List.of("train-a"), t(90));
      assertThat(d.evictions()).extracting(Eviction::getJobId).containsExactly("train-a");
    }

    @Test
    void shouldRefuseAReclaimDecidedBeforeTheJobsCurrentAllocation() {
      long bound = placedAt(d.decisions(), "train-a");

      d.reclaimDecision("IDLE_RECLAIM", "c1/idle-reclaim/train-a/1", "idle-reclaim/train-a",
          bound - 1, PreemptionOutcome.PREEMPT, List.of("train-a"), t(60));

      assertThat(d.evictions()).isEmpty();
      RuleTraceEntry why = line(only(d.decisions(), "idle-reclaim/train-a",
          PlacementOutcome.QUEUED), "P re-check");
      assertThat(why.getSubject()).isEqualTo("c1/idle-reclaim/train-a/1/decision");
      assertThat(why.getDetail()).isEqualTo("victim train-a runs on an allocation bound at v"
          + bound + ", after the decision's v" + (bound - 1));
    }

    @Test
    void shouldRefuseAReclaimOfAJobNoLongerRunningOrAlreadyOnItsWayOut() {
      long bound = placedAt(d.decisions(), "train-a");
      d.quotaReclaim("train-a", ReclaimAction.RECLAIM, List.of(), 0, t(30));
      d.reclaimDecision("IDLE_RECLAIM", "c1/idle-reclaim/train-w/1", "idle-reclaim/train-w",
          bound, PreemptionOutcome.PREEMPT, List.of("train-w"), t(60));
      d.reclaimDecision("IDLE_RECLAIM", "c1/idle-reclaim/train-a/1", "idle-reclaim/train-a",
          bound, PreemptionOutcome.PREEMPT, List.of("train-a"), t(61));
      d.reclaimDecision("IDLE_RECLAIM", "c1/idle-reclaim/train-a/2", "idle-reclaim/train-a",
          bound, PreemptionOutcome.PREEMPT, List.of("train-a"), t(62));

      assertThat(d.evictions()).hasSize(1);
      List<PlacementDecision> ds = d.decisions();
      assertThat(line(only(ds, "idle-reclaim/train-w", PlacementOutcome.QUEUED), "P re-check")
          .getDetail()).isEqualTo("victim(s) [train-w] no longer running");
      assertThat(line(only(ds, "idle-reclaim/train-a", PlacementOutcome.QUEUED), "P re-check")
          .getDetail()).isEqualTo("victim train-a is already being evicted "
          + "(c1/idle-reclaim/train-a/1/decision)");
    }
  }
}
