package io.tideline.executor;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tideline.core.model.CheckpointProfile;
import io.tideline.core.preemption.MigrationCostModel;
import io.tideline.events.Eviction;
import io.tideline.events.EvictionKind;
import io.tideline.events.GpuAssignment;
import io.tideline.events.JobLifecycle;
import io.tideline.events.JobSubmitted;
import io.tideline.events.LifecycleType;
import io.tideline.events.PlacementDecision;
import io.tideline.executor.intake.PodGangs;
import io.tideline.executor.kafka.Outputs;
import io.tideline.executor.kube.KubeActions;
import io.tideline.platform.topics.TopicCatalogue;
import io.tideline.platform.validation.EventValidator;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * What the executor does with each thing it learns — a pod changed, a placement decision, an
 * eviction — carried out against the API server and reported on Kafka (issue #17). One thread
 * calls it (the {@link ExecutorRuntime}'s actor), so its state needs no locks.
 *
 * <p>It enacts and never decides: placement chose the nodes and GPUs, preemption the victims, the
 * P4 model (scheduler-core's {@link MigrationCostModel}) the checkpoint time. Its own state is
 * small and rebuilt on start: the open jobs from {@value Outputs#EXECUTOR_JOBS}, everything else
 * from the pods (their binding, {@code tideline.io/} annotations) and from orders whose offsets are
 * committed only once they are carried out ({@link Order}).
 */
public final class Engine {

  private static final Logger LOG = Logger.getLogger(Engine.class);

  /** An order read from Kafka; {@link #done} lets its offset be committed. */
  public record Order<T>(T event, Runnable done) {}

  /** Read access to the pods and namespaces the informers keep. */
  public interface PodSource {
    /** Every pod of a job id, terminating ones included. */
    List<Pod> podsOf(String jobId);

    /** Labels of a namespace (empty if unknown). */
    Map<String, String> namespaceLabels(String namespace);
  }

  /** Thrown when this replica is stopping mid-way (a crash, not a failure to roll back). */
  public static final class Aborted extends RuntimeException {
    Aborted(String message) {
      super(message);
    }
  }

  /** An eviction being carried out: the pods it stops. */
  private record Evicting(Order<Eviction> order, Set<String> podUids, long graceSeconds) {}

  private final ExecutorSettings settings;
  private final KubeActions kube;
  private final Outputs out;
  private final EventValidator validator;
  private final Clock clock;
  private final ExecutorMeters meters;
  private final PodSource pods;
  private final PodGangs gangs;
  private final MigrationCostModel p4;

  /** Jobs this executor submitted and that are not over, by id. */
  private final Map<String, JobSubmitted> open = new TreeMap<>();
  /** PLACED decisions waiting for their pods (replacement pods may come after the decision). */
  private final Map<String, Order<PlacementDecision>> placements = new HashMap<>();
  /** Evictions under way. */
  private final Map<String, Evicting> evicting = new HashMap<>();
  /** MIGRATE orders whose pods are gone: the replacement pods go to the target. */
  private final Map<String, Order<Eviction>> migrations = new HashMap<>();
  /** Pods already reported invalid (uid + reason), so an update does not repeat the Event. */
  private final Set<String> reportedInvalid = new HashSet<>();
  /** Pods whose running gang was reported (the annotation says so too, once the cache has it). */
  private final Set<String> reportedRunning = new HashSet<>();
  /**
   * Jobs reclaimed for idleness (Q7) by the eviction id: placement retires them (never queued
   * again, ADR 0010), so their replacement pods are told so and wait until their owner deletes
   * them. Rebuilt from the pods' {@link Keys#RECLAIMED} annotation after a restart.
   */
  private final Map<String, String> reclaimed = new HashMap<>();

  public Engine(ExecutorSettings settings, KubeActions kube, Outputs out, Clock clock, ExecutorMeters meters, PodSource pods, Map<String, JobSubmitted> openJobs) {
    this.settings = settings;
    this.kube = kube;
    this.out = out;
    this.validator = new EventValidator(settings.bounds());
    this.clock = clock;
    this.meters = meters;
    this.pods = pods;
    this.gangs = new PodGangs(settings);
    this.p4 = new MigrationCostModel(settings.preemption());
    this.open.putAll(openJobs);
  }

  // ------------------------------------------------------------------------------ pods

  /** A pod of {@code jobId} was added, changed or deleted (the informer's word). */
  public void podChanged(String jobId, Pod deleted) {
    List<Pod> all = pods.podsOf(jobId);
    Evicting ev = evicting.get(jobId);
    if (ev != null) {
      boolean gone = all.stream().noneMatch(p -> ev.podUids().contains(p.getMetadata().getUid()));
      if (gone) {
        evicted(jobId, ev);
      }
    }
    JobSubmitted job = open.get(jobId);
    if (job == null) {
      intake(jobId, all);
      job = open.get(jobId);
      if (job == null) {
        return;
      }
    }
    // the last pod of a job gone, and not by an eviction of ours (a pod we evicted carries its
    // order: when the cache drops two evicted pods before the first delete is handled, the second
    // delete comes after the eviction completed and is no owner's withdrawal)
    if (deleted != null && ev == null && annotation(deleted, Keys.EVICTION) == null
        && !migrations.containsKey(jobId) && live(all).isEmpty() && all.isEmpty()) {
      ownerDeleted(jobId, deleted);
      return;
    }
    retired(jobId, all);
    Order<PlacementDecision> placed = placements.get(jobId);
    if (placed != null) {
      bind(jobId, placed.event().getDecisionId(), placed.event().getAssignments(),
          placed.event().getWorkers(), placed.done(), () -> placements.remove(jobId));
    } else if (migrations.containsKey(jobId)) {
      Order<Eviction> m = migrations.get(jobId);
      bind(jobId, m.event().getDecisionId(), m.event().getTarget(), Map.of(), m.done(),
          () -> migrations.remove(jobId));
    }
    phases(jobId, job);
  }

  /** Unbound pods of a job not submitted yet: a whole gang becomes one submission. */
  private void intake(String jobId, List<Pod> all) {
    List<Pod> candidates = all.stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null
        && p.getSpec().getNodeName() == null && !terminal(p)).toList();
    if (candidates.isEmpty()) {
      return;
    }
    Map<String, String> nsLabels = pods.namespaceLabels(
        candidates.get(0).getMetadata().getNamespace());
    PodGangs.Gang gang = gangs.gang(jobId, candidates, nsLabels);
    if (gang instanceof PodGangs.Incomplete i) {
      LOG.debugf("job %s: %d of %d pods", jobId, i.present(), i.expected());
    } else if (gang instanceof PodGangs.Invalid bad) {
      invalid(bad.culprit(), bad.reason());
    } else if (gang instanceof PodGangs.Ready ready) {
      // the platform's one check of jobs.submitted (ADR 0012), against the timestamp the broker
      // will give the record: every consumer accepts what the executor publishes
      String problem = validator.problem(TopicCatalogue.JOBS_SUBMITTED,
          jobId.getBytes(StandardCharsets.UTF_8), ready.job(), clock.millis());
      if (problem != null) {
        invalid(ready.pods().get(0), problem);
        return;
      }
      out.submitted(ready.job());
      open.put(jobId, ready.job());
      meters.submission("SUBMITTED");
      for (Pod p : ready.pods()) {
        kube.annotate(p, Map.of(Keys.JOB, jobId));
        kube.event(p, "Normal", "Submitted", "Tideline job " + jobId + " submitted ("
            + describe(ready.job()) + "); waiting for placement");
      }
      LOG.infof("submitted %s: %s", jobId, describe(ready.job()));
    }
  }

  private void invalid(Pod pod, String reason) {
    String key = pod.getMetadata().getUid() + "|" + reason;
    if (!reportedInvalid.add(key) || reason.equals(annotation(pod, Keys.REFUSED))) {
      return; // reported already (by this replica, or by an earlier leader: the annotation)
    }
    meters.submission("INVALID");
    meters.deadLetter(Outputs.PODS_DLQ);
    kube.event(pod, "Warning", "InvalidTidelineJob", reason);
    out.deadPod(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(),
        Serialization.asJson(pod), reason, PodTimes.created(pod).toEpochMilli());
    kube.annotate(pod, Map.of(Keys.REFUSED, reason));
    LOG.warnf("pod %s/%s cannot become a job: %s", pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(), reason);
  }

  // ------------------------------------------------------------------------------ decisions

  /** A placement decision for this cluster. */
  public void decision(Order<PlacementDecision> order) {
    PlacementDecision d = order.event();
    String jobId = d.getJobId();
    JobSubmitted job = open.get(jobId);
    if (job == null || d.getDecidedAt().isBefore(job.getSubmittedAt())) {
      meters.order("placement.decisions", "NOT_OURS");
      order.done().run(); // a job submitted elsewhere (CLI, simulator), or an older namesake
      return;
    }
    String outcome = d.getOutcome().name();
    meters.order("placement.decisions", outcome);
    switch (outcome) {
      case "PLACED" -> {
        Order<PlacementDecision> older = placements.put(jobId, order);
        if (older != null) {
          older.done().run();
        }
        bind(jobId, d.getDecisionId(), d.getAssignments(), d.getWorkers(), order.done(),
            () -> placements.remove(jobId));
      }
      case "QUEUED", "PREEMPTION_REQUESTED", "HELD_FOR_PREEMPTOR" -> {
        for (Pod p : live(pods.podsOf(jobId))) {
          kube.event(p, "Normal", "Tideline" + camel(outcome), trace(d));
        }
        order.done().run();
      }
      case "RELEASED" -> {
        released(jobId, d);
        order.done().run();
      }
      case "MIGRATED" -> order.done().run(); // the MIGRATE eviction carries the move
      default -> {
        // an outcome added after this executor was built: log it, never act on it
        LOG.warnf("ignoring placement outcome %s for %s (decision %s): unknown to this executor",
            outcome, jobId, d.getDecisionId());
        order.done().run();
      }
    }
  }

  /**
   * Binds every pod of the gang, all or nothing. A pod already bound to its node (an earlier
   * replica, or this one before a restart) is left alone: a pod is never bound twice. If one bind
   * fails, the pods bound so far are deleted (a binding cannot be undone), the job is reported
   * FAILED with the reason, and the owner's replacement pods come back as a new submission.
   */
  private void bind(String jobId, String decisionId, List<GpuAssignment> assignments,
      Map<String, Integer> workers, Runnable done, Runnable clear) {
    JobSubmitted job = open.get(jobId);
    List<Pod> live = live(pods.podsOf(jobId));
    int expected = job.getResources().getGangSize();
    List<Pod> waiting = live.stream().filter(p -> !decisionId.equals(annotation(p,
        Keys.DECISION)) && !decisionId.equals(annotation(p, Keys.STANDBY))).toList();
    if (waiting.isEmpty() && live.size() == expected) {
      clear.run();
      done.run();
      return; // every pod is bound by this decision
    }
    if (live.size() < expected) {
      LOG.debugf("job %s placed by %s: %d of %d pods present, waiting", jobId, decisionId,
          live.size(), expected);
      return;
    }
    GangPlan.Plan laid;
    try {
      laid = assignments.isEmpty() && workers != null && !workers.isEmpty()
          ? GangPlan.layPods(live, workers) // a job without GPUs (ADR 0030)
          : GangPlan.lay(live, assignments, perPod(job));
    } catch (IllegalArgumentException e) {
      rollback(jobId, live, decisionId, "decision " + decisionId + " does not fit the pods: "
          + e.getMessage());
      clear.run();
      done.run();
      return;
    }
    List<GangPlan.Slot> plan = laid.slots();
    for (GangPlan.Slot s : plan) {
      Pod p = s.pod();
      String bound = p.getSpec().getNodeName();
      if (bound != null) {
        if (bound.equals(s.node())) {
          meters.bind("ALREADY_BOUND");
          continue;
        }
        rollback(jobId, live, decisionId, "pod " + p.getMetadata().getName()
            + " is bound to " + bound + ", placement chose " + s.node());
        clear.run();
        done.run();
        return;
      }
      KubeActions.BindResult r;
      try {
        r = kube.bind(p, s.node(), GangPlan.annotations(s, jobId, decisionId));
      } catch (KubernetesClientException e) {
        if (Thread.currentThread().isInterrupted()) {
          throw new Aborted("stopped while binding " + jobId);
        }
        meters.bind("FAILED");
        rollback(jobId, live, decisionId, "binding " + p.getMetadata().getName() + " to "
            + s.node() + " failed: " + e.getMessage());
        clear.run();
        done.run();
        return;
      }
      switch (r) {
        case BOUND -> {
          meters.bind("BOUND");
          kube.event(p, "Normal", "Scheduled", "Successfully assigned "
              + p.getMetadata().getNamespace() + "/" + p.getMetadata().getName() + " to "
              + s.node() + (s.gpus().isEmpty() ? " (no GPU" : " (GPUs " + s.indices()
              + (s.share() < 1 ? ", share " + s.share() : "")) + "; decision " + decisionId + ")");
        }
        case ALREADY_BOUND_THERE -> meters.bind("ALREADY_BOUND");
        case CONFLICT -> {
          meters.bind("CONFLICT");
          rollback(jobId, live, decisionId, "pod " + p.getMetadata().getName()
              + " was bound elsewhere meanwhile");
          clear.run();
          done.run();
          return;
        }
      }
    }
    for (Pod p : laid.standby()) {
      if (!decisionId.equals(annotation(p, Keys.STANDBY))) {
        kube.annotate(p, Map.of(Keys.STANDBY, decisionId));
        kube.event(p, "Normal", "TidelineStandby", "decision " + decisionId + " places "
            + assignments.size() + " GPU(s): " + plan.size() + " of the gang's " + live.size()
            + " workers (a shrunk job, Q7); this pod waits unbound while the others run");
      }
    }
    LOG.infof("bound %s (%d pods%s) by %s", jobId, plan.size(), laid.standby().isEmpty() ? ""
        : ", " + laid.standby().size() + " on standby", decisionId);
    clear.run();
    done.run();
  }

  /** GPUs each pod of the job asks for (1 for a fractional instance's single pod). */
  private static int perPod(JobSubmitted job) {
    var r = job.getResources();
    return Math.max(1, r.getGpuCount() / Math.max(1, r.getGangSize()));
  }

  private void rollback(String jobId, List<Pod> gang, String decisionId, String reason) {
    LOG.warnf("binding %s by %s failed, deleting its bound pods: %s", jobId, decisionId, reason);
    for (Pod p : gang) {
      kube.event(p, "Warning", "FailedBinding", "gang " + jobId + " not bound (all or nothing): "
          + reason);
    }
    for (Pod p : kube.reread(gang.get(0).getMetadata().getNamespace(),
        gang.stream().map(p -> p.getMetadata().getName()).toList())) {
      if (p != null && p.getSpec().getNodeName() != null) {
        kube.delete(p);
      }
    }
    end(jobId, LifecycleType.FAILED, clock.instant(), decisionId, "bind failed: " + reason);
  }

  /** RELEASED: placement no longer counts the job's GPUs; bound pods still running must go. */
  private void released(String jobId, PlacementDecision d) {
    placements.remove(jobId);
    if (evicting.containsKey(jobId) || migrations.containsKey(jobId)) {
      return;
    }
    for (Pod p : live(pods.podsOf(jobId))) {
      if (p.getSpec().getNodeName() != null && !terminal(p)) {
        kube.event(p, "Warning", "TidelineReleased", "placement released the job's GPUs: "
            + trace(d) + "; deleting the pod");
        kube.delete(p);
      }
    }
  }

  // ------------------------------------------------------------------------------ evictions

  /**
   * An eviction order (Eviction v2): annotate the pods with the checkpoint deadline (a SHRINK
   * also with the GPUs it restarts on), give them the P4 checkpoint-write time plus the stop
   * margin, at most the order's {@code graceSeconds}, as grace, evict them through
   * {@code policy/v1}. The order completes when the pods are gone — PREEMPT, RECLAIM and SHRINK
   * are then PREEMPTED — or, for a MIGRATE, once the replacement pods are bound to its target
   * (RESUMED there when they run), as the twin's executor does.
   */
  public void eviction(Order<Eviction> order) {
    Eviction e = order.event();
    String jobId = e.getJobId();
    if (!open.containsKey(jobId)) {
      meters.order("evictions", "NOT_OURS");
      order.done().run();
      return;
    }
    meters.order("evictions", e.getKind().name());
    Evicting prior = evicting.get(jobId);
    if (prior != null && prior.order().event().getEvictionId().equals(e.getEvictionId())) {
      prior.order().done().run(); // the same order again: carry on with the newer record
    }
    List<Pod> targets = live(pods.podsOf(jobId));
    long grace = grace(open.get(jobId), e);
    Instant deadline = clock.instant().plusSeconds(grace).truncatedTo(ChronoUnit.SECONDS);
    Set<String> uids = new HashSet<>();
    for (Pod p : pods.podsOf(jobId)) {
      uids.add(p.getMetadata().getUid());
    }
    evicting.put(jobId, new Evicting(order, uids, grace));
    for (Pod p : targets) {
      Map<String, String> a = new HashMap<>();
      a.put(Keys.EVICTION, e.getEvictionId());
      if (e.getCheckpointFirst()) {
        a.put(Keys.CHECKPOINT_REQUESTED, deadline.toString());
      }
      boolean shrink = e.getKind() == EvictionKind.SHRINK && e.getShrinkToGpus() != null;
      if (shrink) {
        a.put(Keys.SHRINK_TO, Integer.toString(e.getShrinkToGpus()));
      }
      kube.annotate(p, a);
      kube.event(p, "Normal", e.getCheckpointFirst() ? "CheckpointRequested" : "Evicting",
          e.getKind() + " by Tideline (" + e.getReason() + "): "
              + (e.getCheckpointFirst() ? "checkpoint by " + deadline + ", " : "")
              + "evicting with a grace period of " + grace + " s"
              + (shrink ? "; the job restarts from its checkpoint on " + e.getShrinkToGpus()
                  + " GPU(s)" : ""));
    }
    retryEvictions(jobId);
    if (targets.isEmpty()) {
      podChanged(jobId, null);
    }
  }

  /**
   * Evicts the pods of an eviction under way that are still there and not yet terminating.
   *
   * @return whether a PodDisruptionBudget held one back (the runtime then tries again later)
   */
  public boolean retryEvictions(String jobId) {
    Evicting ev = evicting.get(jobId);
    if (ev == null) {
      return false;
    }
    boolean blocked = false;
    String kind = ev.order().event().getKind().name();
    for (Pod p : live(pods.podsOf(jobId))) {
      try {
        if (kube.evict(p, ev.graceSeconds())) {
          meters.eviction(kind, "EVICTED");
        } else {
          blocked = true;
          meters.eviction(kind, "BLOCKED");
          kube.event(p, "Warning", "EvictionBlocked", "a PodDisruptionBudget does not allow "
              + "evicting this pod now; Tideline tries again (the preemptor waits meanwhile)");
        }
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          blocked = true;
          LOG.warnf("evicting %s/%s failed, will retry: %s", p.getMetadata().getNamespace(),
              p.getMetadata().getName(), e.getMessage());
        }
      }
    }
    return blocked;
  }

  /** Jobs with an eviction under way. */
  public Set<String> evictingJobs() {
    return Set.copyOf(evicting.keySet());
  }

  private void evicted(String jobId, Evicting ev) {
    evicting.remove(jobId);
    Eviction e = ev.order().event();
    if (e.getKind() == EvictionKind.MIGRATE && !e.getTarget().isEmpty()) {
      migrations.put(jobId, ev.order()); // completes when the replacements are bound
      LOG.infof("job %s stopped for migration; replacement pods go to %s", jobId,
          e.getTarget().stream().map(GpuAssignment::getNodeId).distinct().toList());
      return;
    }
    // PREEMPT, RECLAIM, SHRINK: stopped, PREEMPTED (as the twin's executor reports them). On it
    // placement queues a preempted job again (same id, with its compensation and cooldown), a
    // shrunk one with fewer GPUs, and retires a reclaimed one (Q7: never queued again) — the job
    // stays open here so that its replacement pods are told, not submitted as a conflicting
    // namesake.
    lifecycle(jobId, LifecycleType.PREEMPTED, clock.instant(), e.getDecisionId(),
        e.getKind() + ": " + e.getReason());
    if (e.getKind() == EvictionKind.RECLAIM) {
      reclaimed.put(jobId, e.getEvictionId());
    }
    ev.order().done().run();
  }

  /**
   * A reclaimed job's pods (replacements its owner created) hear once why they wait: placement
   * does not queue a job reclaimed for idleness again; their owner deletes them (the job then
   * ends) and submits a new pod group to run again.
   */
  private void retired(String jobId, List<Pod> all) {
    String by = reclaimed.get(jobId);
    if (by == null) {
      by = live(all).stream().map(p -> annotation(p, Keys.RECLAIMED)).filter(a -> a != null)
          .findFirst().orElse(null);
      if (by == null) {
        return;
      }
      reclaimed.put(jobId, by); // learnt again from the pods after a restart
    }
    for (Pod p : live(all)) {
      if (annotation(p, Keys.RECLAIMED) == null && p.getSpec().getNodeName() == null) {
        kube.annotate(p, Map.of(Keys.RECLAIMED, by));
        kube.event(p, "Warning", "TidelineReclaimed", "job " + jobId + " was reclaimed for "
            + "holding its GPUs idle (Q7, eviction " + by + ") and is not queued again: delete "
            + "these pods and create the pod group under a new name to run it again");
      }
    }
  }

  /**
   * Grace: the P4 checkpoint-write time plus the stop margin, never more than the order's own
   * {@code graceSeconds} (the time it gives the job to checkpoint and stop; the twin's executor
   * bounds the write by it too); the order's own without a checkpoint.
   */
  long grace(JobSubmitted job, Eviction e) {
    var cp = job.getCheckpoint();
    if (!e.getCheckpointFirst() || cp == null) {
      return e.getGraceSeconds();
    }
    double write = p4.writeSeconds(new CheckpointProfile(cp.getStateSizeGb(),
        cp.getStorageBandwidthGbPerSec(), cp.getWriteShards(), cp.getIntervalSeconds()));
    return Math.min(e.getGraceSeconds(), (long) Math.ceil(write) + settings.stopMarginSeconds());
  }

  // ------------------------------------------------------------------------------ phases

  private void phases(String jobId, JobSubmitted job) {
    List<Pod> all = pods.podsOf(jobId);
    int expected = job.getResources().getGangSize();
    List<Pod> gang = live(all);
    // the running workers: the bound pods, all of one decision; the others must be its standby
    List<Pod> live = gang.stream().filter(p -> p.getSpec().getNodeName() != null).toList();
    if (gang.size() != expected || live.isEmpty()) {
      return;
    }
    String decision = annotation(live.get(0), Keys.DECISION);
    if (gang.stream().anyMatch(p -> p.getSpec().getNodeName() == null
        && (decision == null || !decision.equals(annotation(p, Keys.STANDBY))))) {
      return; // still being bound
    }
    int workers = live.size();
    if (live.stream().anyMatch(p -> "Failed".equals(phase(p)))) {
      Pod f = live.stream().filter(p -> "Failed".equals(phase(p))).findFirst().orElseThrow();
      end(jobId, LifecycleType.FAILED, PodTimes.finished(live, clock), annotation(f,
          Keys.DECISION), "pod " + f.getMetadata().getName() + " failed: " + why(f));
      return;
    }
    if (live.stream().allMatch(p -> "Succeeded".equals(phase(p)))) {
      end(jobId, LifecycleType.COMPLETED, PodTimes.finished(live, clock),
          annotation(live.get(0), Keys.DECISION), "all " + workers + " pods succeeded");
      return;
    }
    if (live.stream().allMatch(p -> "Running".equals(phase(p)))
        && live.stream().anyMatch(p -> annotation(p, Keys.REPORTED) == null
            && !reportedRunning.contains(p.getMetadata().getUid()))) {
      boolean replacement = live.stream().anyMatch(p -> PodTimes.created(p)
          .isAfter(job.getSubmittedAt()));
      LifecycleType type = replacement ? LifecycleType.RESUMED : LifecycleType.STARTED;
      lifecycle(jobId, type, PodTimes.running(live, clock), annotation(live.get(0),
          Keys.DECISION), "all " + workers + " pods running"
              + (workers < expected ? " (" + (expected - workers) + " on standby)" : ""),
          assignments(live));
      for (Pod p : live) {
        reportedRunning.add(p.getMetadata().getUid()); // the cache may lag behind the patch
        kube.annotate(p, Map.of(Keys.REPORTED, type.name()));
      }
    }
  }

  private void ownerDeleted(String jobId, Pod deleted) {
    placements.remove(jobId);
    boolean ran = deleted.getSpec().getNodeName() != null;
    end(jobId, ran ? LifecycleType.COMPLETED : LifecycleType.FAILED, clock.instant(),
        annotation(deleted, Keys.DECISION), ran ? "pods deleted by their owner"
            : reclaimed.containsKey(jobId) ? "withdrawn after its reclaim (Q7): pods deleted by "
                + "their owner" : "withdrawn: pods deleted before they were placed");
  }

  private void end(String jobId, LifecycleType type, Instant at, String decisionId,
      String message) {
    if (open.remove(jobId) == null) {
      return;
    }
    reclaimed.remove(jobId);
    lifecycle(jobId, type, at, decisionId, message);
    out.closed(jobId);
  }

  private void lifecycle(String jobId, LifecycleType type, Instant at, String decisionId,
      String message) {
    lifecycle(jobId, type, at, decisionId, message, List.of());
  }

  private void lifecycle(String jobId, LifecycleType type, Instant at, String decisionId,
      String message, List<GpuAssignment> held) {
    out.lifecycle(JobLifecycle.newBuilder().setJobId(jobId).setCluster(settings.cluster())
        .setType(type).setOccurredAt(at).setAssignments(held).setDecisionId(decisionId)
        .setMessage(message).build());
    meters.lifecycle(type.name());
    LOG.infof("job %s %s: %s", jobId, type, message);
  }

  // ------------------------------------------------------------------------------ helpers

  /** Whether the engine knows {@code jobId} as open. */
  public boolean isOpen(String jobId) {
    return open.containsKey(jobId);
  }

  private static List<GpuAssignment> assignments(List<Pod> live) {
    List<GpuAssignment> out = new ArrayList<>();
    for (Pod p : live) {
      String gpus = annotation(p, Keys.GPUS);
      String share = annotation(p, Keys.GPU_SHARE);
      if (gpus == null || gpus.isBlank()) {
        continue;
      }
      for (String i : gpus.split(",")) {
        out.add(GpuAssignment.newBuilder().setNodeId(p.getSpec().getNodeName())
            .setGpuIndex(Integer.parseInt(i.strip()))
            .setShare(share == null ? 1.0 : Double.parseDouble(share)).build());
      }
    }
    return out;
  }

  static List<Pod> live(List<Pod> all) {
    return all.stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
  }

  static boolean terminal(Pod p) {
    String ph = phase(p);
    return "Succeeded".equals(ph) || "Failed".equals(ph);
  }

  static String phase(Pod p) {
    return p.getStatus() == null ? null : p.getStatus().getPhase();
  }

  static String annotation(Pod p, String key) {
    var a = p.getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  private static String why(Pod p) {
    if (p.getStatus() == null) {
      return "unknown";
    }
    StringBuilder b = new StringBuilder();
    if (p.getStatus().getReason() != null) {
      b.append(p.getStatus().getReason());
    }
    if (p.getStatus().getMessage() != null) {
      b.append(b.length() > 0 ? ": " : "").append(p.getStatus().getMessage());
    }
    for (ContainerStatus c : p.getStatus().getContainerStatuses()) {
      if (c.getState() != null && c.getState().getTerminated() != null) {
        var t = c.getState().getTerminated();
        b.append(b.length() > 0 ? "; " : "").append("container ").append(c.getName())
            .append(" exited ").append(t.getExitCode())
            .append(t.getReason() == null ? "" : " (" + t.getReason() + ")");
      }
    }
    return b.length() == 0 ? "unknown" : b.toString();
  }

  private static String describe(JobSubmitted j) {
    var r = j.getResources();
    return j.getWorkloadClass() + ", " + (r.getGpuShare() < 1 ? r.getGpuShare() + " of a GPU"
        : r.getGpuCount() + " GPUs in " + r.getGangSize() + " pods") + ", tenant "
        + j.getTenant() + "/" + j.getTeam() + (j.getPreemptible() ? ", preemptible" : "");
  }

  private static String trace(PlacementDecision d) {
    String t = d.getTrace().stream().map(e -> e.getRule() + " " + e.getOutcome() + ": "
        + e.getDetail()).collect(Collectors.joining("; "));
    return d.getOutcome() + " (decision " + d.getDecisionId() + ")" + (t.isEmpty() ? "" : ": " + t);
  }

  private static String camel(String outcome) {
    StringBuilder b = new StringBuilder();
    for (String w : outcome.split("_")) {
      b.append(w.charAt(0)).append(w.substring(1).toLowerCase(java.util.Locale.ROOT));
    }
    return b.toString();
  }
}
