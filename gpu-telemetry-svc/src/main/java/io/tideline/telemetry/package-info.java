/**
 * GPU telemetry: collects GPU samples (DCGM exporter, {@code nvidia-smi} CSV, or the simulator),
 * the cluster inventory and topology, and publishes logical clock ticks (W2, W3, T1, O1).
 *
 * <p>Publishes {@code gpu.telemetry.batches} (GpuSampleBatch, one per node and scrape time, key
 * nodeId; ADR 0040) and/or {@code gpu.telemetry} (GpuSample, key gpuId) as
 * {@code tideline.telemetry.format} says, {@code cluster.inventory} (NodeInventory, compacted, key
 * nodeId) and {@code cluster.clock} (ClockTick, key cluster). A thin adapter: it measures and
 * reports; decisions are made elsewhere, from these events. A batch carries one
 * {@code sampledAt}: a node whose GPUs were read at different exporter timestamps is published as
 * one batch per timestamp, so a batch always means exactly its GPUs' samples.
 *
 * <h2>Duplicates and out-of-order samples are harmless downstream</h2>
 *
 * <ol>
 *   <li><b>Key by gpuId (a batch: by nodeId).</b> Every sample of a GPU goes to the same
 *       partition, so one GPU's samples stay in publish order; the idempotent producer (acks=all) keeps a retried batch from being
 *       written twice or reordered.
 *   <li><b>Event time is {@code sampledAt}.</b> It is the exporter's timestamp when it gives one,
 *       else the collection round's time; a STALE sample carries the time of the failed round. A
 *       GPU gets at most one sample per round.
 *   <li><b>Consumers keep the latest by event time.</b> Per gpuId, a sample whose
 *       {@code sampledAt} is not after the one already held is ignored. A re-delivered or replayed
 *       duplicate therefore changes nothing, and a late sample cannot overwrite a newer one; a
 *       recovery (OK after STALE) is newer by construction.
 *   <li><b>STALE is not a measurement.</b> Its figures are null; a consumer must treat the GPU as
 *       unknown (never as 0% used) until an OK sample with a later {@code sampledAt} arrives.
 * </ol>
 *
 * <p>See the module README for the sources, the attribution convention, the inventory rules, the
 * meters and the publish benchmark.
 */
package io.tideline.telemetry;
