package io.tideline.console.view;

import java.util.List;

/**
 * One page of a longer list, cut server-side so a page costs the same with 10 jobs or 10,000.
 *
 * @param items the rows of this page
 * @param page this page's number, from 1
 * @param pages how many pages there are (at least 1)
 * @param total how many rows all pages hold
 */
public record Page<T>(List<T> items, int page, int pages, int total) {

  /** Page {@code page} (clamped into range) of {@code size} rows of {@code all}. */
  public static <T> Page<T> of(List<T> all, int page, int size) {
    int rows = Math.max(1, size);
    int pages = Math.max(1, (all.size() + rows - 1) / rows);
    int p = Math.min(Math.max(1, page), pages);
    int from = Math.min(all.size(), (p - 1) * rows);
    return new Page<>(List.copyOf(all.subList(from, Math.min(all.size(), from + rows))), p, pages,
        all.size());
  }

  public boolean hasPrevious() {
    return page > 1;
  }

  public boolean hasNext() {
    return page < pages;
  }
}
