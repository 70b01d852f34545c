package io.tideline.notifier.delivery;

/** Where a notice can go (O3). */
public enum Channel {
  SLACK,
  EMAIL
}
