package io.tideline.simulator;

import java.time.Instant;

/**
 * One controller-tick sample of a run, the raw material of the charts (the tide, forecast vs
 * actual, allocation and fragmentation, queue length). Samples are taken in simulated time at every
 * {@link SimConfig#tick()}; nothing here reads a clock.
 *
 * @param at simulated instant of the sample
 * @param onlineDemandGpus online demand of every service at this instant, GPUs (the tide)
 * @param onlineGpus GPUs allocated to online instances
 * @param reservedIdleGpus GPUs held by forecast reservations (F2) and not yet used by an instance
 * @param offlineGpus GPUs allocated to training and batch jobs (the fill)
 * @param forecastGpus the F2 forecast (reservation quantile, summed over services) for the slot
 *     containing {@code at}; {@code NaN} when the policy does not forecast or made no forecast yet
 * @param allocation allocated share of the fleet, in [0, 1]
 * @param fragmentation T2 fragmentation index: stranded idle GPUs ÷ idle GPUs for whole-node
 *     demand, in [0, 1]; 0 when nothing is idle
 * @param queuedJobs offline jobs waiting (submitted or evicted, not running)
 */
public record TimelineSample(
    Instant at,
    double onlineDemandGpus,
    double onlineGpus,
    int reservedIdleGpus,
    double offlineGpus,
    double forecastGpus,
    double allocation,
    double fragmentation,
    int queuedJobs) {}
