//! Live reload's watcher: notices that the viewer's file (or a buffer file it loaded) was
//! written, waits for the writes to settle, loads it and builds the new session on the
//! watcher's own thread, and hands the result to the event loop through a channel. The loop
//! only swaps it in (`App::reload`), so a slow load never stalls a frame.
//!
//! The folders are watched, not the files: editors and exporters often save by writing a
//! temporary file and renaming it over the old one, which a watch on the old file would not
//! see. Native events (inotify, FSEvents, ReadDirectoryChangesW) cost nothing while the
//! file is untouched; a network mount, where they do not arrive, is polled instead: the
//! watched files' sizes and modification times, not notify's `PollWatcher`, which walks the
//! whole folder and compares whole seconds (two saves in one second would look like one).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{Config, DebounceEventResult, Debouncer, new_debouncer_opt};

use super::app::{App, Launch, Session};

/// Quiet time after the last write before the file is read: long enough for an exporter's
/// chunked writes of one file to merge, short enough to reload within 0.1 s of the last one.
const SETTLE: Duration = Duration::from_millis(40);
/// How often a polled folder is scanned.
const POLL_INTERVAL: Duration = Duration::from_millis(300);

/// What a change to the file produced.
pub enum Reload {
    /// The session built on the new file, for the running app to take.
    Loaded(Box<Session>),
    /// The file does not load (half-written, broken): why, naming the file.
    Failed(String),
}

/// A running watch; dropping it stops the watcher threads.
pub struct Watch {
    _watcher: Watcher,
    reloads: Receiver<Reload>,
    /// Polling rather than native events (a network mount, or events unavailable).
    pub polling: bool,
}

/// Held only to be dropped: that stops the watcher and its debouncer thread.
enum Watcher {
    Native(#[allow(dead_code)] Arc<Mutex<Option<Debouncer<RecommendedWatcher>>>>),
    Poll(#[allow(dead_code)] Poller),
}

/// The polling thread; dropping it stops the thread at its next tick.
struct Poller {
    stop: Arc<AtomicBool>,
}

impl Drop for Poller {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Watch {
    /// Watches `file` (and the buffer files it names). Each settled change loads it with
    /// `launch`'s settings and sends the outcome; then `wake` is called so that an idle event
    /// loop looks at it.
    pub fn start(
        file: &Path,
        launch: &Launch,
        wake: impl Fn() + Send + Sync + 'static,
    ) -> Result<Watch, String> {
        Watch::begin(file, launch, Arc::new(wake), false)
    }

    /// Like `start`, but always polls: for a file system whose change events do not arrive
    /// and that the mount table does not give away.
    pub fn start_polling(
        file: &Path,
        launch: &Launch,
        wake: impl Fn() + Send + Sync + 'static,
    ) -> Result<Watch, String> {
        Watch::begin(file, launch, Arc::new(wake), true)
    }

    fn begin(
        file: &Path,
        launch: &Launch,
        wake: Arc<dyn Fn() + Send + Sync>,
        poll: bool,
    ) -> Result<Watch, String> {
        let shown = file.display().to_string();
        let canonical = file.canonicalize().map_err(|e| format!("{shown}: cannot watch: {e}"))?;
        // `--anim` files (and their buffers) are watched too: a clip re-exported into the
        // library reloads the character with it.
        let libs: Vec<PathBuf> = launch
            .anims
            .iter()
            .flat_map(|set| set.files.iter())
            .map(|f| f.canonicalize().map_err(|e| format!("{}: cannot watch: {e}", f.display())))
            .collect::<Result<_, _>>()?;
        let watched = watch_list(&canonical, &libs);
        let mut folders: Vec<PathBuf> =
            watched.iter().filter_map(|p| p.parent().map(Path::to_path_buf)).collect();
        folders.sort();
        folders.dedup();

        let (tx, reloads) = channel();
        let stamps = stamps(&watched);
        // The clip and time come from the running app (`App::reload`); the start-up clip's
        // index may not exist in the new file.
        let launch = Launch { clip: None, time: 0.0, ..launch.clone() };
        let loader = Loader {
            file: canonical,
            libs,
            shown,
            watched,
            stamps,
            launch,
            tx,
            wake,
            folders: Vec::new(),
            native: Weak::new(),
        };
        let network = poll || folders.iter().any(|f| on_network_mount(f));
        let watcher = if network { None } else { native(&folders, loader.clone()).ok() };
        let (watcher, polling) = match watcher {
            Some(w) => (w, false),
            None => (polled(loader).map_err(|e| format!("{}: cannot watch: {e}", file.display()))?, true),
        };
        Ok(Watch { _watcher: watcher, reloads, polling })
    }

    /// Applies every reload that arrived since the last call; true when there was one.
    pub fn apply_pending(&self, app: &mut App) -> bool {
        let mut any = false;
        while let Ok(reload) = self.reloads.try_recv() {
            match reload {
                Reload::Loaded(fresh) => app.reload(*fresh),
                Reload::Failed(why) => app.reload_failed(&why),
            }
            any = true;
        }
        any
    }

    /// Waits up to `timeout` for the next reload (for tests and tools without an event loop).
    pub fn next(&self, timeout: Duration) -> Option<Reload> {
        self.reloads.recv_timeout(timeout).ok()
    }
}

/// The loader holds the debouncer weakly, to watch the folder of a buffer file that a later
/// version of the file names; the `Watch` owns it, so dropping the `Watch` stops it.
fn native(folders: &[PathBuf], mut loader: Loader) -> notify::Result<Watcher> {
    let config = Config::default().with_timeout(SETTLE).with_batch_mode(false);
    let slot = Arc::new(Mutex::new(None));
    loader.folders = folders.to_vec();
    loader.native = Arc::downgrade(&slot);
    let mut debouncer = new_debouncer_opt::<_, RecommendedWatcher>(config, loader)?;
    for f in folders {
        debouncer.watcher().watch(f, RecursiveMode::NonRecursive)?;
    }
    if let Ok(mut s) = slot.lock() {
        *s = Some(debouncer);
    }
    Ok(Watcher::Native(slot))
}

/// Every `POLL_INTERVAL`, the watched files' stamps; a change is loaded once they have held
/// still for one interval (the write has settled).
fn polled(mut loader: Loader) -> std::io::Result<Watcher> {
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::Builder::new().name("rigscope reload poll".into()).spawn(move || {
        let mut seen = loader.stamps.clone();
        let mut moving = false;
        while !stopped.load(Ordering::Relaxed) {
            std::thread::sleep(POLL_INTERVAL);
            let now = stamps(&loader.watched);
            if now != seen {
                seen = now;
                moving = true;
            } else if moving {
                moving = false;
                loader.changed();
                seen = loader.stamps.clone();
            }
        }
    })?;
    Ok(Watcher::Poll(Poller { stop }))
}

/// Runs on the debouncer's or the poller's thread: loads the file when one of the watched
/// paths settled. Cloned once, for the polling fallback should native events fail to start.
#[derive(Clone)]
struct Loader {
    file: PathBuf,
    /// The `--anim` files, canonical.
    libs: Vec<PathBuf>,
    shown: String,
    watched: Vec<PathBuf>,
    /// Each watched file's size and modification time when it was last read.
    stamps: Vec<Option<Stamp>>,
    launch: Launch,
    tx: Sender<Reload>,
    wake: Arc<dyn Fn() + Send + Sync>,
    /// Folders watched for native events, and the watcher to add more to (unset when
    /// polling, which follows `watched` wherever it points).
    folders: Vec<PathBuf>,
    native: Weak<Mutex<Option<Debouncer<RecommendedWatcher>>>>,
}

impl Loader {
    /// A buffer file in a folder not yet watched (the new export put its .bin elsewhere):
    /// watch that folder too.
    fn watch_new_folders(&mut self) {
        let Some(slot) = self.native.upgrade() else { return };
        let Ok(mut guard) = slot.lock() else { return };
        let Some(debouncer) = guard.as_mut() else { return };
        for folder in self.watched.iter().filter_map(|p| p.parent()) {
            if !self.folders.iter().any(|f| f == folder)
                && debouncer.watcher().watch(folder, RecursiveMode::NonRecursive).is_ok()
            {
                self.folders.push(folder.to_path_buf());
            }
        }
    }

    fn reload(&mut self) -> Reload {
        // Messages name the file as the user typed it, not its canonical path.
        let loaded = crate::import::load(&self.file).and_then(|mut rig| {
            rig.source = self.shown.clone();
            if let Some(set) = &self.launch.anims {
                crate::attach::load_with_anims(&mut rig, set)?;
            }
            Ok(rig)
        });
        match loaded {
            Ok(rig) => {
                self.watched = watch_list(&self.file, &self.libs);
                self.stamps = stamps(&self.watched);
                self.watch_new_folders();
                Reload::Loaded(Box::new(Session::new(rig, &self.launch)))
            }
            Err(mut e) => {
                if Path::new(&e.file) == self.file {
                    e.file = self.shown.clone();
                }
                Reload::Failed(e.to_string())
            }
        }
    }
}

impl notify_debouncer_mini::DebounceEventHandler for Loader {
    fn handle_event(&mut self, events: DebounceEventResult) {
        let Ok(events) = events else { return };
        if events.iter().any(|e| self.watched.contains(&e.path)) {
            self.changed();
        }
    }
}

impl Loader {
    /// One of the watched files settled after a change.
    fn changed(&mut self) {
        // Reading a file is an event too on some back ends (the loader's own read among
        // them): only a file whose size or time changed is reloaded.
        let now = stamps(&self.watched);
        if now == self.stamps {
            return;
        }
        self.stamps = now;
        let reload = self.reload();
        if self.tx.send(reload).is_ok() {
            (self.wake)();
        }
    }
}

/// The character, the `--anim` files, and every buffer file each of them names.
fn watch_list(file: &Path, libs: &[PathBuf]) -> Vec<PathBuf> {
    let mut watched = Vec::new();
    for f in std::iter::once(file).chain(libs.iter().map(PathBuf::as_path)) {
        watched.push(f.to_path_buf());
        watched.extend(crate::import::external_files(f));
    }
    watched
}

/// What tells a rewritten file from one only read: its size, its modification time, and
/// on Unix its inode (a save by rename is a new file even where times are coarse).
type Stamp = (u64, Option<std::time::SystemTime>, u64);

fn stamps(files: &[PathBuf]) -> Vec<Option<Stamp>> {
    files.iter().map(|f| std::fs::metadata(f).ok().map(|m| (m.len(), m.modified().ok(), inode(&m)))).collect()
}

#[cfg(unix)]
fn inode(m: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(m)
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> u64 {
    0
}

/// Whether `folder` is on a file system whose change events do not reach this machine
/// (NFS, SMB, sshfs and the like): known from the mount table on Linux; elsewhere native
/// events are tried and polling is only the fallback when they cannot start.
fn on_network_mount(folder: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        std::fs::read_to_string("/proc/self/mountinfo")
            .ok()
            .and_then(|table| mount_type(&table, folder))
            .is_some_and(|fs| is_network_fs(&fs))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = folder;
        false
    }
}

#[cfg(any(target_os = "linux", test))]
/// The file system type of the mount holding `path` (the longest mount point that is a
/// prefix of it) in a `/proc/self/mountinfo` table.
fn mount_type(mountinfo: &str, path: &Path) -> Option<String> {
    let mut best: Option<(usize, String)> = None;
    for line in mountinfo.lines() {
        // Fields: id parent major:minor root mount-point options [optional...] - type source ...
        let fields: Vec<&str> = line.split(' ').collect();
        let Some(point) = fields.get(4) else { continue };
        let Some(dash) = fields.iter().position(|f| *f == "-") else { continue };
        let Some(fs) = fields.get(dash + 1) else { continue };
        let point = unescape_octal(point);
        let len = Path::new(&point).components().count();
        if path.starts_with(&point) && best.as_ref().is_none_or(|(l, _)| len > *l) {
            best = Some((len, fs.to_string()));
        }
    }
    best.map(|(_, fs)| fs)
}

#[cfg(any(target_os = "linux", test))]
/// mountinfo writes a space in a mount point as `\040` (and tab, newline, backslash alike).
fn unescape_octal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let code = rest.get(i + 1..i + 4).and_then(|d| u8::from_str_radix(d, 8).ok());
        match code {
            Some(c) => {
                out.push(c as char);
                rest = &rest[i + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(any(target_os = "linux", test))]
fn is_network_fs(fs: &str) -> bool {
    const NETWORK: [&str; 11] = [
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "9p",
        "afs",
        "ceph",
        "glusterfs",
        "fuse.sshfs",
        "fuse.rclone",
    ];
    NETWORK.contains(&fs) || fs.starts_with("fuse.sshfs")
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
40 22 0:35 / /home/me/shares rw,relatime shared:20 - nfs4 server:/export rw
41 22 0:36 / /mnt/my\\040disk rw - cifs //host/share rw
42 40 8:2 / /home/me/shares/local rw - ext4 /dev/sdb1 rw
";

    #[test]
    fn the_longest_mount_point_decides_the_file_system() {
        let fs = |p: &str| mount_type(MOUNTINFO, Path::new(p));
        assert_eq!(fs("/home/me/rigs").as_deref(), Some("ext4"));
        assert_eq!(fs("/home/me/shares/rigs").as_deref(), Some("nfs4"));
        assert_eq!(fs("/home/me/shares/local/rigs").as_deref(), Some("ext4"));
        assert_eq!(fs("/mnt/my disk/a").as_deref(), Some("cifs"));
        // A prefix by characters is not a prefix by components.
        assert_eq!(fs("/home/me/sharesX").as_deref(), Some("ext4"));
        assert!(is_network_fs("nfs4") && is_network_fs("cifs") && is_network_fs("fuse.sshfs"));
        assert!(!is_network_fs("ext4") && !is_network_fs("tmpfs") && !is_network_fs("overlay"));
    }

    #[test]
    fn octal_escapes_decode_and_a_stray_backslash_stays() {
        assert_eq!(unescape_octal("/a\\040b\\011c"), "/a b\tc");
        assert_eq!(unescape_octal("/a\\b"), "/a\\b");
        assert_eq!(unescape_octal("/end\\04"), "/end\\04");
    }
}
