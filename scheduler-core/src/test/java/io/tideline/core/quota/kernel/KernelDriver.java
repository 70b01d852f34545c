package io.tideline.core.quota.kernel;

import io.tideline.core.kernel.Step;
import io.tideline.core.kernel.Tick;
import io.tideline.core.model.JobRequest;
import io.tideline.core.model.WorkloadClass.Lane;
import io.tideline.core.quota.NodeKind;
import io.tideline.core.quota.PreemptionGrant;
import io.tideline.core.quota.QuotaDefinition;
import io.tideline.core.quota.QuotaNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives a {@link QuotaKernel} in a scenario: offers inputs at explicit event times, ticks, and
 * keeps every effect. The default hierarchy, on a 16-GPU fleet:
 *
 * <pre>
 * acme (floor 12)
 *   search (8, may preempt with online inference and critical jobs)
 *     ranking (8)
 *       inference (4, lends nothing, serves search-api)
 *       training  (4, lends its idle floor)
 *   research (4, no preemption right)
 *     llm (4)
 *       training (4, lends its idle floor)
 * </pre>
 * The shared pool is 16 − 12 = 4 GPUs, plus the idle training floors (8) when idle.
 */
final class KernelDriver {

  static final String CLUSTER = "c1";
  static final String INFERENCE = "acme/search/ranking/inference";
  static final String TRAINING = "acme/search/ranking/training";
  static final String RESEARCH = "acme/research/llm/training";
  static final double NO_CAP = Double.POSITIVE_INFINITY;

  final QuotaKernel kernel;
  QuotaKernelState state;
  final List<QuotaEffect> effects = new ArrayList<>();

  KernelDriver() {
    this(config(hierarchy("k-1"), 16));
  }

  KernelDriver(QuotaKernelConfig config) {
    kernel = new QuotaKernel(config);
    state = kernel.initial();
  }

  static QuotaDefinition hierarchy(String version) {
    return QuotaDefinition.of(version,
        QuotaNode.organisation("acme", 12, NO_CAP),
        QuotaNode.businessLine("acme/search", 8, NO_CAP, 8)
            .withGrants(PreemptionGrant.ONLINE_INFERENCE, PreemptionGrant.CRITICAL_JOBS),
        QuotaNode.team("acme/search/ranking", 8, NO_CAP, 8),
        new QuotaNode(INFERENCE, NodeKind.QUEUE, Lane.INFERENCE, 4, NO_CAP, 0, 1.0, null)
            .withServices("search-api"),
        QuotaNode.queue(TRAINING, Lane.TRAINING, 4, NO_CAP, 4),
        QuotaNode.businessLine("acme/research", 4, NO_CAP, 4).withGrants(),
        QuotaNode.team("acme/research/llm", 4, NO_CAP, 4),
        QuotaNode.queue(RESEARCH, Lane.TRAINING, 4, NO_CAP, 4));
  }

  static QuotaInput.Definition definition(QuotaDefinition def, double fleet, Instant at) {
    return new QuotaInput.Definition(CLUSTER, def.version(), "test", "text of " + def.version(),
        def, fleet, at);
  }

  static QuotaKernelConfig config(QuotaDefinition def, double fleet) {
    return QuotaKernelConfig.defaults(CLUSTER, definition(def, fleet, Instant.EPOCH));
  }

  // ------------------------------------------------------------------ inputs

  List<QuotaEffect> offer(QuotaInput in) {
    Step<QuotaKernelState, QuotaEffect> s = kernel.step(Instant.EPOCH, state, in);
    state = s.state();
    effects.addAll(s.effects());
    return s.effects();
  }

  List<QuotaEffect> tick(Instant at) {
    return offer(new QuotaInput.Clock(new Tick(at, CLUSTER)));
  }

  List<QuotaEffect> submit(JobRequest job) {
    return offer(new QuotaInput.Submission(job));
  }

  void lifecycle(String job, QuotaInput.Lifecycle.Kind kind, Instant at) {
    offer(new QuotaInput.Lifecycle(job, kind, at, 0));
  }

  void started(String job, Instant at) {
    lifecycle(job, QuotaInput.Lifecycle.Kind.STARTED, at);
  }

  void preempted(String job, Instant at) {
    lifecycle(job, QuotaInput.Lifecycle.Kind.PREEMPTED, at);
  }

  void completed(String job, Instant at) {
    lifecycle(job, QuotaInput.Lifecycle.Kind.COMPLETED, at);
  }

  void peak(String service, double gpus, Instant at) {
    offer(new QuotaInput.Peak(service, gpus, at));
  }

  void sample(String gpu, String job, double utilisation, Instant at) {
    offer(new QuotaInput.Sample(gpu, job, utilisation, at));
  }

  // ------------------------------------------------------------------ effects

  static <T> List<T> of(Class<T> type, List<QuotaEffect> effects) {
    return effects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  static QuotaEffect.VerdictIssued verdict(String job, List<QuotaEffect> effects) {
    return of(QuotaEffect.VerdictIssued.class, effects).stream()
        .filter(v -> v.jobId().equals(job)).reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no verdict for " + job + " in " + effects));
  }

  QuotaJob job(String id) {
    return state.jobs().get(id);
  }
}
