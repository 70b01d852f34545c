/**
 * Keeping the fleet unfragmented (T2, T3, T4): the demand-shape
 * {@link io.tideline.core.fragmentation.FragmentationIndex}, and two planners that propose (never
 * apply) migrations — {@link io.tideline.core.fragmentation.PassiveDefragPlanner} after a
 * placement refused for fragmentation, {@link io.tideline.core.fragmentation.ActiveDefragPlanner}
 * in trough slots — both under the 3%-per-period, never-at-peak rate limit.
 */
package io.tideline.core.fragmentation;
