package io.tideline.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.core.cluster.TestJobs;
import io.tideline.core.model.WorkloadClass;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class QueueOrderTest {

  static final Instant T0 = Instant.parse("2026-11-02T14:00:00Z");

  static QueuedJob queued(String id, WorkloadClass c, int rank, double usage, int boost,
      Instant submitted) {
    return new QueuedJob(TestJobs.training(id, 8).workloadClass(c).submittedAt(submitted).build(),
        new QuotaRank(rank, "r" + rank), new FairShare(usage), new CompensationBoost(boost));
  }

  @Test
  void shouldOrderByClassThenQuotaThenFairShareThenBoostThenTimeThenId() {
    List<QueuedJob> jobs = new ArrayList<>(List.of(
        queued("h-late-id", WorkloadClass.TRAINING, 0, 0.5, 0, T0.plusSeconds(60)),
        queued("g-tie-b", WorkloadClass.TRAINING, 0, 0.5, 0, T0),
        queued("f-tie-a", WorkloadClass.TRAINING, 0, 0.5, 0, T0),
        queued("e-boosted", WorkloadClass.TRAINING, 0, 0.5, 2, T0.plusSeconds(3600)),
        queued("d-low-usage", WorkloadClass.TRAINING, 0, 0.49, 0, T0.plusSeconds(7200)),
        queued("c-over-cap", WorkloadClass.TRAINING, 2, 0.0, 9, T0),
        queued("b-explore", WorkloadClass.EXPLORATORY_TRAINING, 0, 0.0, 9, T0),
        queued("a-online", WorkloadClass.ONLINE_INFERENCE, 2, 9.0, 0, T0.plusSeconds(9999))));

    jobs.sort(QueueOrder.INSTANCE);

    assertThat(jobs).extracting(q -> q.job().jobId()).containsExactly(
        "a-online", "d-low-usage", "e-boosted", "f-tie-a", "g-tie-b", "h-late-id", "c-over-cap",
        "b-explore");
  }

  @Test
  void shouldTreatNegativeZeroUsageAsZero() {
    QueuedJob a = queued("x", WorkloadClass.TRAINING, 0, -0.0, 0, T0);
    QueuedJob b = queued("x", WorkloadClass.TRAINING, 0, 0.0, 0, T0);

    assertThat(QueueOrder.INSTANCE.compare(a, b)).isZero();
  }

  @Provide
  Arbitrary<QueuedJob> queuedJobs() {
    return Combinators.combine(
        Arbitraries.of("a", "b", "c"),
        Arbitraries.of(WorkloadClass.class),
        Arbitraries.integers().between(0, 2),
        Arbitraries.of(0.0, 0.25, 0.5),
        Arbitraries.integers().between(0, 2),
        Arbitraries.integers().between(0, 2))
        .as((id, c, rank, usage, boost, t) ->
            queued(id, c, rank, usage, boost, T0.plusSeconds(t)));
  }

  @Property
  void orderIsAntisymmetric(@ForAll("queuedJobs") QueuedJob a, @ForAll("queuedJobs") QueuedJob b) {
    assertThat(Integer.signum(QueueOrder.INSTANCE.compare(a, b)))
        .isEqualTo(-Integer.signum(QueueOrder.INSTANCE.compare(b, a)));
  }

  @Property
  void orderIsTransitive(@ForAll("queuedJobs") QueuedJob a, @ForAll("queuedJobs") QueuedJob b,
      @ForAll("queuedJobs") QueuedJob c) {
    QueueOrder o = QueueOrder.INSTANCE;
    if (o.compare(a, b) <= 0 && o.compare(b, c) <= 0) {
      assertThat(o.compare(a, c)).isLessThanOrEqualTo(0);
    }
  }

  @Property
  void onlyIdenticalStandingsCompareEqual(@ForAll("queuedJobs") QueuedJob a,
      @ForAll("queuedJobs") QueuedJob b) {
    boolean sameKeys = a.job().workloadClass() == b.job().workloadClass()
        && a.quota().rank() == b.quota().rank()
        && a.fairShare().equals(b.fairShare())
        && a.boost().equals(b.boost())
        && a.job().submittedAt().equals(b.job().submittedAt())
        && a.job().jobId().equals(b.job().jobId());
    assertThat(QueueOrder.INSTANCE.compare(a, b) == 0).isEqualTo(sameKeys);
  }
}
