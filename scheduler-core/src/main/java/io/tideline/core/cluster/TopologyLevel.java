package io.tideline.core.cluster;

/**
 * Topology domains from tightest to widest (T1). Placement tries them in this order and stops at
 * the first that fits; everything wider than {@link #ASW} crosses a switch domain and pays the
 * bandwidth penalty.
 */
public enum TopologyLevel {
  /** One host: GPUs talk over the node's NVLink/NVSwitch. */
  NODE,
  /** Hosts sharing one NVLink fabric (rack-scale systems); equals NODE for HGX boards. */
  NVLINK_ISLAND,
  /** Hosts under one access (top-of-rack) switch: the tightest switch domain. */
  ASW,
  /** Hosts under one aggregation switch. */
  PSW,
  /** Hosts under one core switch. */
  DSW,
  /** Anywhere in the cluster. */
  CLUSTER;

  /** Whether a placement spanning this level crosses a switch domain (T1 penalty applies). */
  public boolean crossesSwitchDomain() {
    return compareTo(ASW) > 0;
  }

  /** Switch tiers crossed above the access switch: 0 up to ASW, 1 for PSW, 2 DSW, 3 CLUSTER. */
  public int switchTiersCrossed() {
    return Math.max(0, ordinal() - ASW.ordinal());
  }
}
