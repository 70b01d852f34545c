package io.tideline.forecaster.topology;

import java.util.List;

/**
 * What the forecaster uses of a {@code GpuSampleBatch} (ADR 0040), read straight off the wire by
 * {@link BatchFactsReader}: the node, the scrape's time, the cluster's length for its bound, and
 * each GPU as the {@link SampleFacts} its {@code GpuSample} would be (the batch's node and time
 * filled in), in the batch's order.
 *
 * @param nodeId the node scraped (the record's key)
 * @param sampledAt event time of the scrape, epoch millis
 * @param clusterLength the cluster's length in characters (the only use of it: its bound)
 * @param gpus the GPUs, in order
 */
record BatchFacts(String nodeId, long sampledAt, int clusterLength, List<SampleFacts> gpus) {}
