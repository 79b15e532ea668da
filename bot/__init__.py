"""The Discord host: settings, storage, the game service, the delivery layer and the app."""
