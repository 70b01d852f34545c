package io.tideline.core.preemption;

import java.time.Duration;
import java.time.Instant;

/**
 * What a victim gets back for being evicted (P6), carried to quota, placement and the owner's
 * notice (P7) so the eviction comes with a way back.
 *
 * @param queueBoost age credit added to the victim's queue position when it re-enters the queue
 * @param cooldownUntil until then it is not a victim again and runs only on guaranteed quota (P3)
 * @param offPeakRetryAt suggested retry time: the next trough slot, not before the cooldown ends;
 *     {@code null} when the caller knows no trough
 * @param sharedPoolFallback whether it may fall back to the shared pool after its cooldown
 */
public record Compensation(
    Duration queueBoost, Instant cooldownUntil, Instant offPeakRetryAt,
    boolean sharedPoolFallback) {}
