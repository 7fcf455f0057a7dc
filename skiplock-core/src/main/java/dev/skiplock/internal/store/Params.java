package dev.skiplock.internal.store;

import java.util.HashMap;
import java.util.Map;

/** Named statement parameters; unlike {@code Map.of}, values may be {@code null} (bound as SQL NULL). */
final class Params {
    private Params() {
    }

    static Map<String, Object> of(Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values must come in pairs");
        }
        Map<String, Object> params = new HashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            params.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return params;
    }
}
