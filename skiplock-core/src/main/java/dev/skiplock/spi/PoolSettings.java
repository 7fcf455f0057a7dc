package dev.skiplock.spi;

/**
 * What an application may set on the pool Skiplock creates from a URL ({@code Skiplock.Builder}):
 * credentials kept out of the URL, and the pool's size; and how many connections the pool keeps
 * open when idle, which Skiplock decides. {@code null} leaves a value to the URL or to the
 * driver's default.
 *
 * @param user        the database user, or {@code null} for the URL's
 * @param password    the password, or {@code null} for the URL's
 * @param maxPoolSize the most connections the pool opens, or {@code null} for the driver's default;
 *                    the pool keeps at most this many idle
 * @param minIdle     the fewest connections the pool keeps open (it opens them at once, and more
 *                    as they are asked for), or {@code null} for all of them: a pool full from the
 *                    start, what a worker's claimers, completer and heartbeats use
 */
public record PoolSettings(String user, String password, Integer maxPoolSize, Integer minIdle) {
    /** Everything from the URL and the driver's defaults. */
    public static final PoolSettings DEFAULTS = new PoolSettings(null, null, null);
    /** The bounds of {@code maxPoolSize}: a claimer and a completer need a connection each at least. */
    public static final int MIN_POOL_SIZE = 2;
    public static final int MAX_POOL_SIZE = 1000;

    public PoolSettings {
        requireSize("maxPoolSize", maxPoolSize);
        if (minIdle != null && minIdle < 0) {
            throw new IllegalArgumentException("minIdle: must not be negative, got " + minIdle);
        }
    }

    /** A pool full from the start. */
    public PoolSettings(String user, String password, Integer maxPoolSize) {
        this(user, password, maxPoolSize, null);
    }

    /**
     * Checks a pool size given under {@code field} (the builder's {@code maxPoolSize}, a command
     * line's {@code --pool-size}): {@code null} or within the bounds.
     */
    public static void requireSize(String field, Integer size) {
        if (size != null && (size < MIN_POOL_SIZE || size > MAX_POOL_SIZE)) {
            throw new IllegalArgumentException(field + ": must be between " + MIN_POOL_SIZE + " and " + MAX_POOL_SIZE
                    + ", got " + size);
        }
    }

    /** The pool size to use: this one if set, else {@code driverDefault}. */
    public int maxPoolSizeOr(int driverDefault) {
        return maxPoolSize != null ? maxPoolSize : driverDefault;
    }

    /** The connections to keep open when idle, for a pool of {@code poolSize}: {@link #minIdle}, at most all. */
    public int minIdleOf(int poolSize) {
        return minIdle != null ? Math.min(minIdle, poolSize) : poolSize;
    }
}
