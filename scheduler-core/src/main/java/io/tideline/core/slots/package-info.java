/**
 * Time slots of the day (requirement F4): the slot grid every time-dimension decision shares, and
 * the engine that classifies slots into deep trough, trough, flat and peak by K-means over the
 * fleet's usage profile. Placement (active defragmentation only in troughs, T3/T4) and pricing
 * (B1) read the resulting {@link io.tideline.core.slots.SlotMap}.
 */
package io.tideline.core.slots;
