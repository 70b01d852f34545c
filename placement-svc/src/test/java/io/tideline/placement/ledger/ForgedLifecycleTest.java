package io.tideline.placement.ledger;

import static io.tideline.placement.ledger.PlacementFlowTest.only;
import static io.tideline.placement.ledger.PlacementFlowTest.t;
import static io.tideline.placement.ledger.PlacementFlowTest.training;
import static org.assertj.core.api.Assertions.assertThat;

import io.tideline.events.DeadLetter;
import io.tideline.events.JobLifecycle;
import io.tideline.events.LifecycleType;
import io.tideline.events.PlacementDecision;
import io.tideline.events.PlacementOutcome;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.testkit.RegistryFixture;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code jobs.lifecycle} is the executor's (ADR 0029): on an open broker a {@code COMPLETED}
 * fact for a running job that the executor did not write frees none of its GPUs; it is
 * dead-lettered {@code PROVENANCE} with the reason, and the executor's own fact still does.
 */
class ForgedLifecycleTest {

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

  @Test
  void shouldFreeNothingOnAForgedCompletionOfARunningJob() {
    d.nodes(1, t(0));
    d.admit(training("running", 8, t(1)), t(1));
    d.admit(training("waiting", 8, t(2)), t(2));
    only(d.decisions(), "running", PlacementOutcome.PLACED);

    d.sendAs(null, TopicCatalogue.JOBS_LIFECYCLE, "running", completed("running", t(100)),
        t(100));
    d.sendAs("tideline-submitter", TopicCatalogue.JOBS_LIFECYCLE, "running",
        completed("running", t(101)), t(101));
    d.tick(t(102));

    assertThat(d.decisions()).as("nothing released, nothing placed").isEmpty();
    List<DeadLetter> letters = d.deadLetters(TopicCatalogue.JOBS_LIFECYCLE);
    assertThat(letters).extracting(DeadLetter::getErrorClass)
        .containsExactly("PROVENANCE", "PROVENANCE");
    assertThat(letters).extracting(DeadLetter::getError).containsExactly(
        "no tideline-producer header: jobs.lifecycle is written only by tideline-executor"
            + " (expected tideline-executor, found none)",
        "written by tideline-submitter, but jobs.lifecycle is written only by tideline-executor"
            + " (expected tideline-executor, found tideline-submitter)");

    d.lifecycle("running", LifecycleType.COMPLETED, t(200));

    List<PlacementDecision> ds = d.decisions();
    only(ds, "running", PlacementOutcome.RELEASED);
    only(ds, "waiting", PlacementOutcome.PLACED);
  }

  private static JobLifecycle completed(String job, Instant at) {
    return JobLifecycle.newBuilder().setJobId(job).setCluster(LedgerDriver.CLUSTER)
        .setType(LifecycleType.COMPLETED).setOccurredAt(at).build();
  }
}
