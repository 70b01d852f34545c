package io.tideline.core.forecast;

import java.time.LocalDate;

/**
 * A service's historical peak over the rolling window: quota sizes the online guarantee as 70% of
 * it (Q1) and reviews it as the tide moves (Q5).
 *
 * @param serviceId the online service
 * @param gpus largest usage sample in the window, in GPUs (0 when there is no history)
 * @param day the local day the peak was seen, or {@code null} when there is no history
 * @param windowStart first local day of the window (inclusive)
 * @param windowEnd last local day of the window (inclusive)
 */
public record PeakUsage(
    String serviceId, double gpus, LocalDate day, LocalDate windowStart, LocalDate windowEnd) {}
