package io.tideline.core.quota.kernel;

import io.tideline.core.model.WorkloadClass.Lane;
import io.tideline.core.quota.NodeKind;
import io.tideline.core.quota.QueueUsage;
import io.tideline.core.quota.QuotaDefinition;
import io.tideline.core.quota.QuotaLedger;
import io.tideline.core.quota.QuotaNode;
import io.tideline.core.quota.SharedPool;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Read models of the quota hierarchy with its usage, shared by the kernel's {@code quota.state}
 * effects and the service's REST queries so both say the same thing: per node its floor in force,
 * cap, lending limit, weight, GPUs in use on the floor and borrowed (summed over its subtree) and
 * decayed fair-share usage (Q4), all computed from a {@link QuotaKernelState}.
 */
public final class QuotaViews {

  private QuotaViews() {}

  /** One node with usage. Infinite caps are reported as {@code null} (no cap). */
  public record NodeView(String path, NodeKind kind, Lane lane, double guaranteedGpus,
      Double borrowCapGpus, double lendLimitGpus, double weight, double usedGuaranteedGpus,
      double usedBorrowedGpus, double fairShareGpuHours, int runningJobs) {}

  /** The whole tree, for {@code GET /quota/tree}. */
  public record TreeView(String policyVersion, double fleetGpus, double poolGpus,
      double lendableGpus, double borrowedGpus, Instant asOf, List<NodeView> nodes) {}

  /** One tenant (business line) with its teams and queues, for {@code GET /quota/tenants/{t}}. */
  public record TenantView(String tenant, String policyVersion, Instant asOf, NodeView businessLine,
      List<NodeView> nodes) {}

  /** The tree as of the last tick; empty before any definition is in force. */
  public static Optional<TreeView> tree(QuotaKernelState s, String rulesVersion) {
    if (s.definition() == null) {
      return Optional.empty();
    }
    QuotaDefinition def = s.inForce();
    QuotaLedger ledger = s.ledger();
    Instant now = s.asOf();
    SharedPool pool = SharedPool.of(def, ledger);
    Map<String, Long> decayed = ledger.decayedGpuMillis(now);
    List<NodeView> nodes = new ArrayList<>();
    for (QuotaNode n : sorted(def)) {
      nodes.add(node(n, ledger, decayed));
    }
    return Optional.of(new TreeView(s.policyVersion(rulesVersion), ledger.fleetGpus(),
        pool.poolGpus(), pool.lendableGpus(), pool.borrowedGpus(), now, nodes));
  }

  /** One tenant as of the last tick; empty when no such business line is in force. */
  public static Optional<TenantView> tenant(QuotaKernelState s, String rulesVersion,
      String tenant) {
    if (s.definition() == null) {
      return Optional.empty();
    }
    QuotaDefinition def = s.inForce();
    Optional<QuotaNode> line = def.businessLine(tenant);
    if (line.isEmpty()) {
      return Optional.empty();
    }
    Map<String, Long> decayed = s.ledger().decayedGpuMillis(s.asOf());
    String prefix = line.get().path() + "/";
    List<NodeView> nodes = sorted(def).stream().filter(n -> n.path().startsWith(prefix))
        .map(n -> node(n, s.ledger(), decayed)).toList();
    return Optional.of(new TenantView(tenant, s.policyVersion(rulesVersion), s.asOf(),
        node(line.get(), s.ledger(), decayed), nodes));
  }

  /** The {@code quota.state} record of one queue at {@code now}. */
  static QuotaEffect.QueueStateChanged queueState(QuotaDefinition def, QuotaLedger ledger,
      QuotaNode q, Instant now, String policyVersion) {
    QueueUsage u = ledger.usage(q.path());
    String[] parts = q.path().split("/");
    return new QuotaEffect.QueueStateChanged(q.path(), parts.length > 1 ? parts[1] : parts[0],
        q.lane(), q.guaranteedGpus(), q.borrowCapGpus(), q.lendLimitGpus(), u.guaranteedUsed(),
        u.borrowedUsed(), hours(ledger.decayedGpuMillis(q.path(), now)), policyVersion, now);
  }

  /** Decayed GPU-milliseconds as the GPU-hours the contracts publish (deterministic). */
  static double hours(long gpuMillis) {
    return gpuMillis / 3_600_000.0;
  }

  private static List<QuotaNode> sorted(QuotaDefinition def) {
    List<QuotaNode> out = new ArrayList<>();
    def.root().ifPresent(r -> walk(def, r, out));
    return out;
  }

  private static void walk(QuotaDefinition def, QuotaNode n, List<QuotaNode> out) {
    out.add(n);
    for (QuotaNode k : def.children(n.path())) {
      walk(def, k, out);
    }
  }

  private static NodeView node(QuotaNode n, QuotaLedger ledger, Map<String, Long> decayed) {
    String prefix = n.path() + "/";
    double g = 0;
    double b = 0;
    long d = 0;
    for (Map.Entry<String, QueueUsage> e : ledger.usages().entrySet()) {
      if (e.getKey().equals(n.path()) || e.getKey().startsWith(prefix)) {
        g += e.getValue().guaranteedUsed();
        b += e.getValue().borrowedUsed();
      }
    }
    for (Map.Entry<String, Long> e : decayed.entrySet()) {
      if (e.getKey().equals(n.path()) || e.getKey().startsWith(prefix)) {
        d += e.getValue();
      }
    }
    int jobs = (int) ledger.allocations().stream()
        .filter(a -> a.queue().equals(n.path()) || a.queue().startsWith(prefix)).count();
    return new NodeView(n.path(), n.kind(), n.lane(), n.guaranteedGpus(),
        Double.isInfinite(n.borrowCapGpus()) ? null : n.borrowCapGpus(), n.lendLimitGpus(),
        n.weight(), round(g), round(b), hours(d), jobs);
  }

  private static double round(double v) {
    return Math.round(v * 1e6) / 1e6;
  }
}
