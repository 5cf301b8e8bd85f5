// Placeholder until this suite lands.
