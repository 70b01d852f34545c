package io.tideline.core.quota;

import io.tideline.core.model.WorkloadClass.Lane;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One node of the declarative quota hierarchy (requirement Q2): organisation → business line → team
 * → queue. A node is named by its slash-separated path ({@code "acme/search/ranking/training"}), so
 * its parent is the path without the last segment.
 *
 * @param path slash-separated path; the root has a single segment
 * @param kind level in the hierarchy
 * @param lane the lane (Q6) of a queue; {@code null} for other kinds
 * @param guaranteedGpus floor: GPUs this node keeps whatever others do (for inner nodes, the budget
 *     its children's floors subdivide)
 * @param borrowCapGpus most GPUs this node's subtree may borrow beyond its guarantees (Q3);
 *     {@link Double#POSITIVE_INFINITY} for no cap
 * @param lendLimitGpus most of this node's unused guarantee that may be lent to borrowers
 * @param weight fair-share weight (Q4): decayed usage is divided by it; must be positive
 * @param preemptionGrants W4 entitlements; {@code null} inherits the nearest ancestor's (root: none)
 * @param services online service ids this (INFERENCE) queue serves (Q1/Q5): once the forecaster has
 *     published a service's historical peak, the queue's floor in force is the sum of its services'
 *     online guarantees instead of the declared one (see {@link OnlineFloors}); empty for none
 */
public record QuotaNode(
    String path,
    NodeKind kind,
    Lane lane,
    double guaranteedGpus,
    double borrowCapGpus,
    double lendLimitGpus,
    double weight,
    Set<PreemptionGrant> preemptionGrants,
    SortedSet<String> services) {

  public QuotaNode {
    // An unmodifiable EnumSet keeps declaration order, so traces read the same on every JVM.
    preemptionGrants = preemptionGrants == null ? null
        : Collections.unmodifiableSet(preemptionGrants.isEmpty()
            ? EnumSet.noneOf(PreemptionGrant.class) : EnumSet.copyOf(preemptionGrants));
    services = Collections.unmodifiableSortedSet(
        services == null ? new TreeSet<>() : new TreeSet<>(services));
  }

  /** A node that serves no online service. */
  public QuotaNode(String path, NodeKind kind, Lane lane, double guaranteedGpus,
      double borrowCapGpus, double lendLimitGpus, double weight,
      Set<PreemptionGrant> preemptionGrants) {
    this(path, kind, lane, guaranteedGpus, borrowCapGpus, lendLimitGpus, weight, preemptionGrants,
        null);
  }

  public static QuotaNode organisation(String path, double floor, double borrowCap) {
    return new QuotaNode(path, NodeKind.ORGANISATION, null, floor, borrowCap, floor, 1.0, Set.of());
  }

  public static QuotaNode businessLine(String path, double floor, double borrowCap, double lend) {
    return new QuotaNode(path, NodeKind.BUSINESS_LINE, null, floor, borrowCap, lend, 1.0, null);
  }

  public static QuotaNode team(String path, double floor, double borrowCap, double lend) {
    return new QuotaNode(path, NodeKind.TEAM, null, floor, borrowCap, lend, 1.0, null);
  }

  public static QuotaNode queue(
      String path, Lane lane, double floor, double borrowCap, double lend) {
    return new QuotaNode(path, NodeKind.QUEUE, lane, floor, borrowCap, lend, 1.0, null);
  }

  /** This node with its W4 entitlements set (an empty set grants nothing). */
  public QuotaNode withGrants(PreemptionGrant... grants) {
    Set<PreemptionGrant> set = grants.length == 0 ? Set.of() : EnumSet.of(grants[0], grants);
    return new QuotaNode(path, kind, lane, guaranteedGpus, borrowCapGpus, lendLimitGpus, weight,
        set, services);
  }

  /** This node with a fair-share weight. */
  public QuotaNode withWeight(double w) {
    return new QuotaNode(path, kind, lane, guaranteedGpus, borrowCapGpus, lendLimitGpus, w,
        preemptionGrants, services);
  }

  /** This node serving the given online services (Q5: their guarantees become its floor). */
  public QuotaNode withServices(String... ids) {
    return new QuotaNode(path, kind, lane, guaranteedGpus, borrowCapGpus, lendLimitGpus, weight,
        preemptionGrants, new TreeSet<>(Set.of(ids)));
  }

  /** This node with another floor (everything else kept): how a reviewed guarantee is applied. */
  public QuotaNode withFloor(double gpus) {
    return new QuotaNode(path, kind, lane, gpus, borrowCapGpus, lendLimitGpus, weight,
        preemptionGrants, services);
  }

  /** The parent's path, or {@code null} for a root. */
  public String parentPath() {
    int i = path == null ? -1 : path.lastIndexOf('/');
    return i < 0 ? null : path.substring(0, i);
  }

  /** The last path segment. */
  public String name() {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
