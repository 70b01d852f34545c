package io.tideline.notifier.delivery;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Notices waiting to go out, one entry per notice and channel, each with the event time at which
 * it may be sent (after quiet hours and its digest window). {@link #due} releases what is due at a
 * given stream time, grouped per user and channel: several digestible entries become one digest.
 *
 * @param <T> what is sent (the notice)
 */
public final class Outbox<T> {

  /**
   * One notice on one channel.
   *
   * @param key noticeId|channel
   * @param userId recipient
   * @param channel channel
   * @param releaseAt event time from which it may be sent
   * @param eventTime event time of the notice itself (orders a digest)
   * @param digestible whether it may be merged into a digest
   * @param payload the notice
   * @param batchKey the idempotency key of the message it was being sent in when the notifier
   *     stopped (a SENDING left by a crash), or null: entries sharing one go out again together,
   *     as the same message with the same key
   */
  public record Entry<T>(String key, String userId, Channel channel, Instant releaseAt,
      Instant eventTime, boolean digestible, T payload, String batchKey) {

    /** An entry not yet sent. */
    public Entry(String key, String userId, Channel channel, Instant releaseAt, Instant eventTime,
        boolean digestible, T payload) {
      this(key, userId, channel, releaseAt, eventTime, digestible, payload, null);
    }
  }

  /**
   * What to send at once: one entry alone, or several as a digest.
   *
   * @param userId recipient
   * @param channel channel
   * @param entries the notices, in event-time then key order
   * @param resendKey the idempotency key of a message sent before a crash and not recorded as
   *     delivered, which this batch sends again; null for a new message
   */
  public record Batch<T>(String userId, Channel channel, List<Entry<T>> entries,
      String resendKey) {

    /** A new message. */
    public Batch(String userId, Channel channel, List<Entry<T>> entries) {
      this(userId, channel, entries, null);
    }

    /** Whether this is a digest of several notices. */
    public boolean digest() {
      return entries.size() > 1;
    }
  }

  private final Map<String, Entry<T>> pending = new LinkedHashMap<>();

  /** Adds an entry unless one with the same key waits already; returns whether it was added. */
  public boolean add(Entry<T> e) {
    return pending.putIfAbsent(e.key(), e) == null;
  }

  /** Forgets an entry (sent or dead-lettered). */
  public void remove(String key) {
    pending.remove(key);
  }

  public int size() {
    return pending.size();
  }

  /**
   * The batches due at stream time {@code now}, removed from nothing (callers remove what they
   * sent). Order: by user, channel, then event time, so a run is deterministic.
   */
  public List<Batch<T>> due(Instant now) {
    // 1. Collect the due entries per user and channel; a message in doubt after a crash is
    //    sent again whole, as it was (same entries, same key), whenever it is found.
    Map<String, List<Entry<T>>> groups = new TreeMap<>();
    Map<String, List<Entry<T>>> resends = new TreeMap<>();
    for (Entry<T> e : pending.values()) {
      if (e.batchKey() != null) {
        resends.computeIfAbsent(e.batchKey(), k -> new ArrayList<>()).add(e);
      } else if (!e.releaseAt().isAfter(now)) {
        groups.computeIfAbsent(e.userId() + "\u0000" + e.channel(), k -> new ArrayList<>()).add(e);
      }
    }
    List<Batch<T>> out = new ArrayList<>();
    Comparator<Entry<T>> order = Comparator.<Entry<T>, Instant>comparing(Entry::eventTime)
        .thenComparing(Entry::key);
    for (Map.Entry<String, List<Entry<T>>> r : resends.entrySet()) {
      List<Entry<T>> g = new ArrayList<>(r.getValue());
      g.sort(order);
      out.add(new Batch<>(g.get(0).userId(), g.get(0).channel(), List.copyOf(g), r.getKey()));
    }
    // 2. Digestible entries of a group go together, the others one by one.
    for (List<Entry<T>> g : groups.values()) {
      g.sort(order);
      List<Entry<T>> digest = new ArrayList<>();
      for (Entry<T> e : g) {
        if (e.digestible()) {
          digest.add(e);
        } else {
          out.add(new Batch<>(e.userId(), e.channel(), List.of(e)));
        }
      }
      if (!digest.isEmpty()) {
        out.add(new Batch<>(digest.get(0).userId(), digest.get(0).channel(), List.copyOf(digest)));
      }
    }
    return out;
  }
}
