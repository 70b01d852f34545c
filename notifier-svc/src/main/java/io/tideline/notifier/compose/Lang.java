package io.tideline.notifier.compose;

import java.util.Locale;

/**
 * The languages notices are written in (P7). A user's BCP 47 tag picks one; anything else falls
 * back to English so nobody gets no notice for want of a translation.
 */
public enum Lang {
  EN("en"),
  ZH_CN("zh-CN");

  private final String tag;

  Lang(String tag) {
    this.tag = tag;
  }

  /** The BCP 47 tag, also the folder of the templates ({@code templates/<tag>/}). */
  public String tag() {
    return tag;
  }

  /** The language for a user's tag: any {@code zh*} is Chinese, everything else English. */
  public static Lang of(String tag) {
    if (tag == null) {
      return EN;
    }
    String t = tag.trim().toLowerCase(Locale.ROOT);
    return t.startsWith("zh") ? ZH_CN : EN;
  }
}
