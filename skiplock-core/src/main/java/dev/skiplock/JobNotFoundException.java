package dev.skiplock;

import java.util.UUID;

/** No job with this id exists for the caller's tenant. */
public final class JobNotFoundException extends SkiplockException {
    public JobNotFoundException(UUID id) {
        super("job " + id + " not found");
    }
}
