package dev.skiplock.spi;

/**
 * What an application may set on the pool Skiplock creates from a URL ({@code Skiplock.Builder}):
 * credentials kept out of the URL, and the pool's size. {@code null} leaves a value to the URL or
 * to the driver's default.
 *
 * @param user        the database user, or {@code null} for the URL's
 * @param password    the password, or {@code null} for the URL's
 * @param maxPoolSize the most connections the pool opens, or {@code null} for the driver's default;
 *                    the pool keeps at most this many idle
 */
public record PoolSettings(String user, String password, Integer maxPoolSize) {
    /** Everything from the URL and the driver's defaults. */
    public static final PoolSettings DEFAULTS = new PoolSettings(null, null, null);

    public PoolSettings {
        if (maxPoolSize != null && (maxPoolSize < 2 || maxPoolSize > 1000)) {
            throw new IllegalArgumentException("maxPoolSize: must be between 2 and 1000, got " + maxPoolSize);
        }
    }

    /** The pool size to use: this one if set, else {@code driverDefault}. */
    public int maxPoolSizeOr(int driverDefault) {
        return maxPoolSize != null ? maxPoolSize : driverDefault;
    }
}
