package io.tideline.quota.stream;

import io.tideline.core.model.WorkloadClass.Lane;
import io.tideline.core.quota.NodeKind;
import io.tideline.core.quota.QueueUsage;
import io.tideline.core.quota.QuotaDefinition;
import io.tideline.core.quota.QuotaLedger;
import io.tideline.core.quota.QuotaNode;
import io.tideline.core.quota.SharedPool;
import io.tideline.events.QuotaSegment;
import io.tideline.events.QuotaState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Read models of the quota hierarchy with its usage, shared by {@code quota.state} and the REST
 * endpoints so both say the same thing: per node its floor, cap, lending limit, weight, GPUs in use
 * on the floor and borrowed (summed over its subtree) and decayed fair-share usage (Q4).
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

  public static TreeView tree(QuotaDefinition def, QuotaLedger ledger, Instant now,
      String policyVersion) {
    SharedPool pool = SharedPool.of(def, ledger);
    Map<String, Double> decayed = ledger.decayedUsages(now);
    List<NodeView> nodes = new ArrayList<>();
    for (QuotaNode n : sorted(def)) {
      nodes.add(node(n, ledger, decayed));
    }
    return new TreeView(policyVersion, ledger.fleetGpus(), pool.poolGpus(), pool.lendableGpus(),
        pool.borrowedGpus(), now, nodes);
  }

  public static Optional<TenantView> tenant(QuotaDefinition def, QuotaLedger ledger, Instant now,
      String policyVersion, String tenant) {
    Optional<QuotaNode> line = def.businessLine(tenant);
    if (line.isEmpty()) {
      return Optional.empty();
    }
    Map<String, Double> decayed = ledger.decayedUsages(now);
    String prefix = line.get().path() + "/";
    List<NodeView> nodes = sorted(def).stream().filter(n -> n.path().startsWith(prefix))
        .map(n -> node(n, ledger, decayed)).toList();
    return Optional.of(new TenantView(tenant, policyVersion, now, node(line.get(), ledger,
        decayed), nodes));
  }

  /** The {@code quota.state} record of one queue. */
  public static QuotaState queueState(QuotaDefinition def, QuotaLedger ledger, QuotaNode q,
      Instant now, String policyVersion) {
    QueueUsage u = ledger.usage(q.path());
    String[] parts = q.path().split("/");
    return QuotaState.newBuilder()
        .setQueue(q.path())
        .setTenant(parts.length > 1 ? parts[1] : parts[0])
        .setSegment(q.lane() == Lane.INFERENCE ? QuotaSegment.ONLINE_GUARANTEED
            : QuotaSegment.OFFLINE_GUARANTEED)
        .setGuaranteedGpus(q.guaranteedGpus())
        .setBorrowCapGpus(q.borrowCapGpus())
        .setLendingLimitGpus(q.lendLimitGpus())
        .setUsedGuaranteedGpus(u.guaranteedUsed())
        .setUsedBorrowedGpus(u.borrowedUsed())
        .setFairShareUsage(ledger.decayedUsage(q.path(), now) / 3600.0)
        .setUpdatedAt(now)
        .setPolicyVersion(policyVersion)
        .build();
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

  private static NodeView node(QuotaNode n, QuotaLedger ledger, Map<String, Double> decayed) {
    String prefix = n.path() + "/";
    double g = 0;
    double b = 0;
    double d = 0;
    for (Map.Entry<String, QueueUsage> e : ledger.usages().entrySet()) {
      if (e.getKey().equals(n.path()) || e.getKey().startsWith(prefix)) {
        g += e.getValue().guaranteedUsed();
        b += e.getValue().borrowedUsed();
      }
    }
    for (Map.Entry<String, Double> e : decayed.entrySet()) {
      if (e.getKey().equals(n.path()) || e.getKey().startsWith(prefix)) {
        d += e.getValue();
      }
    }
    int jobs = (int) ledger.allocations().stream()
        .filter(a -> a.queue().equals(n.path()) || a.queue().startsWith(prefix)).count();
    return new NodeView(n.path(), n.kind(), n.lane(), n.guaranteedGpus(),
        Double.isInfinite(n.borrowCapGpus()) ? null : n.borrowCapGpus(), n.lendLimitGpus(),
        n.weight(), round(g), round(b), d / 3600.0, jobs);
  }

  private static double round(double v) {
    return Math.round(v * 1e6) / 1e6;
  }
}
