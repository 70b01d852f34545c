package io.tideline.core.quota;

import java.time.Instant;

/**
 * A job's GPU utilisation at one instant, averaged over its GPUs (from {@code gpu.telemetry}).
 *
 * @param at event time of the sample
 * @param utilisation busy fraction in [0, 1]
 */
public record UtilisationSample(Instant at, double utilisation) {}
