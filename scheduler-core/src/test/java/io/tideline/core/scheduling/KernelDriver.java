package io.tideline.core.scheduling;

import io.tideline.core.cluster.Node;
import io.tideline.core.cluster.SwitchPath;
import io.tideline.core.cluster.state.Admission;
import io.tideline.core.cluster.state.ClusterFact;
import io.tideline.core.cluster.state.JobFacts.Event;
import io.tideline.core.cluster.state.NodeRecord;
import io.tideline.core.cluster.state.NodeStatus;
import io.tideline.core.kernel.Step;
import io.tideline.core.kernel.Tick;
import io.tideline.core.model.JobRequest;
import io.tideline.core.quota.Verdict;
import io.tideline.core.scheduling.PlacementEffect.Decided;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives the placement kernel in scenario tests: feeds inputs (they wait in the inbox) and ticks
 * (the kernel decides), keeps the state and every effect, like the adapter does.
 */
final class KernelDriver {

  static final String CLUSTER = "c1";

  final PlacementKernel kernel;
  PlacementState state = PlacementState.empty();
  final List<PlacementEffect> effects = new ArrayList<>();
  Instant clock;

  KernelDriver(PlacementPolicy policy) {
    this.kernel = new PlacementKernel(policy);
  }

  KernelDriver() {
    this(PlacementPolicy.defaults(CLUSTER));
  }

  List<PlacementEffect> offer(PlacementInput in) {
    Step<PlacementState, PlacementEffect> s = kernel.step(clock, state, in);
    state = s.state();
    effects.addAll(s.effects());
    return s.effects();
  }

  List<PlacementEffect> tick(Instant at) {
    clock = at;
    return offer(new PlacementInput.ClockTick(new Tick(at, CLUSTER)));
  }

  KernelDriver nodes(int count, Instant at) {
    for (int i = 1; i <= count; i++) {
      String id = String.format("n%02d", i);
      offer(new PlacementInput.Inventory(new NodeRecord(new Node(id, "H100", 8, id,
          new SwitchPath("dsw1", "psw1", "asw" + ((i + 1) / 2))), NodeStatus.ACTIVE, at)));
    }
    return this;
  }

  KernelDriver submit(JobRequest job) {
    offer(new PlacementInput.Submission(job));
    return this;
  }

  KernelDriver admit(JobRequest job, Verdict v, Instant at) {
    offer(new PlacementInput.Verdict(job.jobId(), new Admission(v, job.gpuDemand(),
        v != Verdict.GUARANTEED && job.preemptible(), job.preemptionRight(), 0, "q", at)));
    return this;
  }

  KernelDriver lifecycle(String jobId, Event e, Instant at) {
    offer(new PlacementInput.Lifecycle(new ClusterFact.Lifecycle(jobId, e, at, null, null, null,
        null)));
    return this;
  }

  /** Quota names {@code named} for {@code action} ({@code quota.reclaims}). */
  KernelDriver reclaim(String jobId, PlacementInput.Reclaim.Action action, List<String> named,
      int recommendedGpus, Instant at) {
    offer(new PlacementInput.Reclaim(jobId, action, named, recommendedGpus,
        action == PlacementInput.Reclaim.Action.GUARANTEE ? CLUSTER + "/guarantee/" + jobId + "/"
            + at.toEpochMilli() : "", at));
    return this;
  }

  /**
   * Preemption decides to evict {@code victims} on a reclaim, on the ledger as it is now
   * ({@code preemption.decisions}).
   */
  KernelDriver answer(String decisionId, PlacementInput.PreemptionAnswer.Trigger trigger,
      String subject, Instant at, PlacementInput.AnswerVictim... victims) {
    offer(new PlacementInput.PreemptionAnswer(decisionId, decisionId, subject, trigger, true,
        List.of(victims), 0, state.cluster().version(), at, CLUSTER));
    return this;
  }

  /** A victim that stops. */
  static PlacementInput.AnswerVictim victim(String jobId) {
    return new PlacementInput.AnswerVictim(jobId, 0);
  }

  /** A victim that restarts on {@code gpus} GPUs. */
  static PlacementInput.AnswerVictim shrunk(String jobId, int gpus) {
    return new PlacementInput.AnswerVictim(jobId, gpus);
  }

  List<Decided> decisions(String jobId) {
    List<Decided> out = new ArrayList<>();
    for (PlacementEffect e : effects) {
      if (e instanceof Decided d && d.jobId().equals(jobId)) {
        out.add(d);
      }
    }
    return out;
  }

  <T extends PlacementEffect> List<T> all(Class<T> type) {
    List<T> out = new ArrayList<>();
    for (PlacementEffect e : effects) {
      if (type.isInstance(e)) {
        out.add(type.cast(e));
      }
    }
    return out;
  }
}
