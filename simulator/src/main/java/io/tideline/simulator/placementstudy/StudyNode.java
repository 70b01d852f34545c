package io.tideline.simulator.placementstudy;

/**
 * One row of a nodes CSV in the public GPU-cluster trace format
 * ({@code sn,cpu_milli,memory_mib,gpu,model}).
 *
 * @param sn node serial (its id)
 * @param cpuMilli CPU in millicores
 * @param memoryMib memory in MiB
 * @param gpus GPUs on the node
 * @param model GPU model name
 */
public record StudyNode(String sn, long cpuMilli, long memoryMib, int gpus, String model) {}
