"""The ground floor: settings, time, errors, logs and metrics, outbound HTTPS, SnapStart; imports no other floor."""
