/**
 * GPU telemetry: collects GPU samples (DCGM exporter, nvidia-smi, simulator), the cluster inventory and topology, and publishes logical clock ticks.
 *
 * <p>Publishes: gpu.telemetry, cluster.inventory, cluster.clock. A thin adapter: decisions come from {@code scheduler-core}.
 */
package io.tideline.telemetry;
