package io.tideline.core.cluster;

import java.util.Objects;

/**
 * Where a node hangs in the 3-tier Clos network (T1): access switch (ASW, top of rack) under an
 * aggregation switch (PSW) under a core switch (DSW).
 *
 * <p>Switch names are only unique under their parent (the 847-host data reuses {@code S14} under
 * several PSWs), so domains are keyed by the full path: {@link #aswDomain()} is
 * {@code DSW/PSW/ASW}, {@link #pswDomain()} is {@code DSW/PSW}.
 *
 * @param dsw core switch
 * @param psw aggregation switch
 * @param asw access switch
 */
public record SwitchPath(String dsw, String psw, String asw) {

  public SwitchPath {
    Objects.requireNonNull(dsw, "dsw");
    Objects.requireNonNull(psw, "psw");
    Objects.requireNonNull(asw, "asw");
  }

  /** The access-switch domain key, unique in the cluster. */
  public String aswDomain() {
    return dsw + "/" + psw + "/" + asw;
  }

  /** The aggregation-switch domain key, unique in the cluster. */
  public String pswDomain() {
    return dsw + "/" + psw;
  }

  /** The core-switch domain key. */
  public String dswDomain() {
    return dsw;
  }
}
