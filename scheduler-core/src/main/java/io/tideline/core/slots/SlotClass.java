package io.tideline.core.slots;

/**
 * The four slot classes of requirement F4, ordered from the lowest fleet usage to the highest.
 * The order is the order of the K-means centroids, so {@code compareTo} compares load levels.
 */
public enum SlotClass {
  /** Lowest usage (F4 example: 00:00): the best time for training and active defragmentation. */
  DEEP_TROUGH,
  /** Low usage, still favourable for offline work. */
  TROUGH,
  /** Middle usage (F4 example: 10:00). */
  FLAT,
  /** Highest usage (F4 examples: 06:00 morning peak, 18:00 evening peak): no migrations (T4). */
  PEAK
}
