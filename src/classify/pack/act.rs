//! What a command does to systems other than files: [`Act`], written `system.verb` in the
//! packs, which the policy turns into a domain and a risk.
//!
//! `build.rs` includes this file beside `schema.rs`: nothing here may name the crate.

use std::fmt;

use serde::Deserialize;

/// A system other than files that a command acts on, and how.
///
/// Written `system.verb`. The policy turns each into a domain and a risk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
pub enum Act {
    // Version control, local.
    /// Reads the repository.
    #[serde(rename = "vcs.read")]
    VcsRead,
    /// Records work in the local repository (stages, commits, stashes, creates a branch or
    /// tag): nothing is lost, the reflog undoes each step.
    #[serde(rename = "vcs.record")]
    VcsRecord,
    /// Changes the local repository in a way its history keeps.
    #[serde(rename = "vcs.change")]
    VcsChange,
    /// Throws away the working tree's uncommitted changes (`reset --hard`, `checkout -- .`,
    /// `clean -f`): irreversible when there are any.
    #[serde(rename = "vcs.discard")]
    VcsDiscard,
    /// Throws away history or refs git cannot bring back (unmerged branches, stashes, the
    /// reflog, unreachable commits).
    #[serde(rename = "vcs.destroy")]
    VcsDestroy,
    /// Sets configuration that runs programs, or configuration outside the project.
    #[serde(rename = "vcs.configure")]
    VcsConfigure,
    // Version control, remote.
    /// Reads a remote without changing the working tree (`git fetch`).
    #[serde(rename = "vcs-remote.read")]
    VcsRemoteRead,
    /// Downloads from a remote into the working tree (`git pull`, `git clone`).
    #[serde(rename = "vcs-remote.receive")]
    VcsRemoteReceive,
    /// Publishes to a remote (`git push`).
    #[serde(rename = "vcs-remote.change")]
    VcsRemoteChange,
    /// Rewrites or deletes on a remote (`git push --force`, `--delete`).
    #[serde(rename = "vcs-remote.destroy")]
    VcsRemoteDestroy,
    /// Sends work to another system (`git send-email`, `git svn`).
    #[serde(rename = "vcs-remote.send")]
    VcsRemoteSend,
    // Code hosting.
    /// Reads from the code host.
    #[serde(rename = "hosting.read")]
    HostingRead,
    /// Changes data on the code host.
    #[serde(rename = "hosting.change")]
    HostingChange,
    /// Deletes or archives on the code host.
    #[serde(rename = "hosting.destroy")]
    HostingDestroy,
    /// Changes credentials, keys or secrets on the code host.
    #[serde(rename = "hosting.credentials")]
    HostingCredentials,
    /// Sends a request of its own making that changes data through the code host's API (`gh
    /// api -X PATCH`, a body, a GraphQL mutation): anything the token allows, from a
    /// repository's visibility and collaborators to its webhooks and branches.
    #[serde(rename = "hosting.api-write")]
    HostingApiWrite,
    // Secrets.
    /// Prints credentials or secrets.
    #[serde(rename = "secrets.read")]
    SecretsRead,
    /// Changes or removes credentials, keys or secrets (the old ones are gone).
    #[serde(rename = "secrets.change")]
    SecretsChange,
    // Packages.
    /// Reads package information.
    #[serde(rename = "package.read")]
    PackageRead,
    /// Installs, updates or removes the project's dependencies.
    #[serde(rename = "package.install")]
    PackageInstall,
    /// Installs or removes packages outside the project (global, user, root).
    #[serde(rename = "package.global")]
    PackageGlobal,
    /// Installs or removes the system's packages.
    #[serde(rename = "package.system")]
    PackageSystem,
    /// Fetches a well-known tool from its registry and runs it (`uvx ruff`).
    #[serde(rename = "package.run")]
    PackageRun,
    /// Fetches a package by name from a registry and runs it (`npx some-pkg`, `pnpm dlx`,
    /// `go run mod@latest`): code nobody has read, chosen by a name.
    #[serde(rename = "package.run-unknown")]
    PackageRunUnknown,
    /// Publishes to a registry or changes a registry account.
    #[serde(rename = "registry.publish")]
    RegistryPublish,
    // Building and running the project.
    /// Builds, formats or generates (the project's build recipes).
    #[serde(rename = "build.run")]
    BuildRun,
    /// Runs the project's tests.
    #[serde(rename = "test.run")]
    TestRun,
    /// Checks code without changing it.
    #[serde(rename = "lint.run")]
    LintRun,
    /// Runs the project's own code or scripts.
    #[serde(rename = "script.run")]
    ScriptRun,
    /// Starts an interpreter or a tool that does local work oath does not follow further.
    #[serde(rename = "tool.run")]
    ToolRun,
    // Files as a whole.
    /// Moves files to the trash (recoverable).
    #[serde(rename = "files.trash")]
    FilesTrash,
    // The local system.
    /// Reads the state of services.
    #[serde(rename = "service.read")]
    ServiceRead,
    /// Starts, stops or changes services.
    #[serde(rename = "service.change")]
    ServiceChange,
    /// Stops or restarts the machine.
    #[serde(rename = "power.change")]
    PowerChange,
    /// Stops processes.
    #[serde(rename = "process.change")]
    ProcessChange,
    /// Stops init or every process.
    #[serde(rename = "process.destroy")]
    ProcessDestroy,
    /// Lists scheduled jobs.
    #[serde(rename = "schedule.read")]
    ScheduleRead,
    /// Schedules or removes jobs (persistence).
    #[serde(rename = "schedule.change")]
    ScheduleChange,
    /// Changes system accounts.
    #[serde(rename = "account.change")]
    AccountChange,
    /// Reads system settings.
    #[serde(rename = "system.read")]
    SystemRead,
    /// Changes system settings (network, kernel, firewall, boot).
    #[serde(rename = "system.change")]
    SystemChange,
    /// Formats, partitions or erases storage.
    #[serde(rename = "disk.destroy")]
    DiskDestroy,
    /// Runs a command in another root, namespace or service.
    #[serde(rename = "namespace.run")]
    NamespaceRun,
    /// Runs a command with root's rights.
    #[serde(rename = "privilege.elevate")]
    PrivilegeElevate,
    /// Opens a shell with root's or another user's rights.
    #[serde(rename = "privilege.shell")]
    PrivilegeShell,
    /// Uses sudo without a command (credential cache, listing).
    #[serde(rename = "privilege.admin")]
    PrivilegeAdmin,
    // Infrastructure and remote systems.
    /// Reads containers or images.
    #[serde(rename = "container.read")]
    ContainerRead,
    /// Runs, builds or changes containers.
    #[serde(rename = "container.change")]
    ContainerChange,
    /// Removes containers, images or networks (a rebuild brings them back).
    #[serde(rename = "container.remove")]
    ContainerRemove,
    /// Removes volumes or everything at once (their data is gone).
    #[serde(rename = "container.destroy")]
    ContainerDestroy,
    /// Gives a container the host (privileged, host root, the docker socket).
    #[serde(rename = "container.privileged")]
    ContainerPrivileged,
    /// Reads a cluster.
    #[serde(rename = "cluster.read")]
    ClusterRead,
    /// Does other cluster work.
    #[serde(rename = "cluster.change")]
    ClusterChange,
    /// Changes live cluster resources.
    #[serde(rename = "cluster.deploy")]
    ClusterDeploy,
    /// Deletes or drains cluster resources.
    #[serde(rename = "cluster.destroy")]
    ClusterDestroy,
    /// Reads cloud resources.
    #[serde(rename = "cloud.read")]
    CloudRead,
    /// Creates or changes cloud resources.
    #[serde(rename = "cloud.change")]
    CloudChange,
    /// Deletes or stops cloud resources.
    #[serde(rename = "cloud.destroy")]
    CloudDestroy,
    /// Reads infrastructure state or plans.
    #[serde(rename = "infra.read")]
    InfraRead,
    /// Does other infrastructure work.
    #[serde(rename = "infra.change")]
    InfraChange,
    /// Applies changes to live infrastructure.
    #[serde(rename = "infra.deploy")]
    InfraDeploy,
    /// Destroys infrastructure.
    #[serde(rename = "infra.destroy")]
    InfraDestroy,
    /// Reads a database (queries that only select, listings, help).
    #[serde(rename = "database.read")]
    DatabaseRead,
    /// Talks to a database.
    #[serde(rename = "database.change")]
    DatabaseChange,
    /// Drops, truncates or deletes data in a database.
    #[serde(rename = "database.destroy")]
    DatabaseDestroy,
    /// Reads another remote service (an API's CLI).
    #[serde(rename = "remote.read")]
    RemoteRead,
    /// Changes data on another remote service.
    #[serde(rename = "remote.change")]
    RemoteChange,
    /// Deletes on another remote service.
    #[serde(rename = "remote.destroy")]
    RemoteDestroy,
    // The network.
    /// Downloads.
    #[serde(rename = "net.receive")]
    NetReceive,
    /// Opens a raw connection.
    #[serde(rename = "net.connect")]
    NetConnect,
    /// Runs commands on another host (a remote shell, `ssh host CMD`, copies onto it).
    #[serde(rename = "net.remote")]
    NetRemote,
    /// Listens for connections.
    #[serde(rename = "net.listen")]
    NetListen,
    /// Sends mail or messages.
    #[serde(rename = "net.send")]
    NetSend,
    /// Copies files to or from another host.
    #[serde(rename = "net.copy")]
    NetCopy,
    /// Routes commands through a proxy.
    #[serde(rename = "net.proxy")]
    NetProxy,
    /// Hands a shell to a network peer (a reverse or bind shell).
    #[serde(rename = "net.shell")]
    NetShell,
    /// Sends credentials or secrets off the machine.
    #[serde(rename = "net.exfiltrate")]
    NetExfiltrate,
    // The shell.
    /// Prints or reads state; changes nothing.
    #[serde(rename = "shell.harmless")]
    ShellHarmless,
    /// Starts an interactive shell.
    #[serde(rename = "shell.interactive")]
    ShellInteractive,
    /// Runs code computed at run time.
    #[serde(rename = "shell.unknown-code")]
    ShellUnknownCode,
    /// Decodes data.
    #[serde(rename = "shell.decode")]
    ShellDecode,
    // People's tools.
    /// Edits files interactively.
    #[serde(rename = "editor.open")]
    EditorOpen,
    /// Opens a file or URL with another program.
    #[serde(rename = "desktop.open")]
    DesktopOpen,
    /// Starts another agent.
    #[serde(rename = "agent.run")]
    AgentRun,
    /// Asks an agent about itself.
    #[serde(rename = "agent.read")]
    AgentRead,
    /// Runs a program no pack describes.
    #[serde(rename = "program.unknown")]
    ProgramUnknown,
    /// Runs a program no pack describes with words that destroy (`delete`, `drop`, `purge`).
    #[serde(rename = "program.destroy")]
    ProgramDestroy,
    /// Reads oath's state.
    #[serde(rename = "oath.read")]
    OathRead,
    /// Changes oath's own setup.
    #[serde(rename = "oath.change")]
    OathChange,
}

/// Every [`Act`] with its written name, for messages and `oath rules`.
pub const ACTS: &[(Act, &str)] = &[
    (Act::VcsRead, "vcs.read"),
    (Act::VcsRecord, "vcs.record"),
    (Act::VcsChange, "vcs.change"),
    (Act::VcsDiscard, "vcs.discard"),
    (Act::VcsDestroy, "vcs.destroy"),
    (Act::VcsConfigure, "vcs.configure"),
    (Act::VcsRemoteRead, "vcs-remote.read"),
    (Act::VcsRemoteReceive, "vcs-remote.receive"),
    (Act::VcsRemoteChange, "vcs-remote.change"),
    (Act::VcsRemoteDestroy, "vcs-remote.destroy"),
    (Act::VcsRemoteSend, "vcs-remote.send"),
    (Act::HostingRead, "hosting.read"),
    (Act::HostingChange, "hosting.change"),
    (Act::HostingDestroy, "hosting.destroy"),
    (Act::HostingCredentials, "hosting.credentials"),
    (Act::HostingApiWrite, "hosting.api-write"),
    (Act::SecretsRead, "secrets.read"),
    (Act::SecretsChange, "secrets.change"),
    (Act::PackageRead, "package.read"),
    (Act::PackageInstall, "package.install"),
    (Act::PackageGlobal, "package.global"),
    (Act::PackageSystem, "package.system"),
    (Act::PackageRun, "package.run"),
    (Act::PackageRunUnknown, "package.run-unknown"),
    (Act::RegistryPublish, "registry.publish"),
    (Act::BuildRun, "build.run"),
    (Act::TestRun, "test.run"),
    (Act::LintRun, "lint.run"),
    (Act::ScriptRun, "script.run"),
    (Act::ToolRun, "tool.run"),
    (Act::FilesTrash, "files.trash"),
    (Act::ServiceRead, "service.read"),
    (Act::ServiceChange, "service.change"),
    (Act::PowerChange, "power.change"),
    (Act::ProcessChange, "process.change"),
    (Act::ProcessDestroy, "process.destroy"),
    (Act::ScheduleRead, "schedule.read"),
    (Act::ScheduleChange, "schedule.change"),
    (Act::AccountChange, "account.change"),
    (Act::SystemRead, "system.read"),
    (Act::SystemChange, "system.change"),
    (Act::DiskDestroy, "disk.destroy"),
    (Act::NamespaceRun, "namespace.run"),
    (Act::PrivilegeElevate, "privilege.elevate"),
    (Act::PrivilegeShell, "privilege.shell"),
    (Act::PrivilegeAdmin, "privilege.admin"),
    (Act::ContainerRead, "container.read"),
    (Act::ContainerChange, "container.change"),
    (Act::ContainerRemove, "container.remove"),
    (Act::ContainerDestroy, "container.destroy"),
    (Act::ContainerPrivileged, "container.privileged"),
    (Act::ClusterRead, "cluster.read"),
    (Act::ClusterChange, "cluster.change"),
    (Act::ClusterDeploy, "cluster.deploy"),
    (Act::ClusterDestroy, "cluster.destroy"),
    (Act::CloudRead, "cloud.read"),
    (Act::CloudChange, "cloud.change"),
    (Act::CloudDestroy, "cloud.destroy"),
    (Act::InfraRead, "infra.read"),
    (Act::InfraChange, "infra.change"),
    (Act::InfraDeploy, "infra.deploy"),
    (Act::InfraDestroy, "infra.destroy"),
    (Act::DatabaseRead, "database.read"),
    (Act::DatabaseChange, "database.change"),
    (Act::DatabaseDestroy, "database.destroy"),
    (Act::RemoteRead, "remote.read"),
    (Act::RemoteChange, "remote.change"),
    (Act::RemoteDestroy, "remote.destroy"),
    (Act::NetReceive, "net.receive"),
    (Act::NetConnect, "net.connect"),
    (Act::NetRemote, "net.remote"),
    (Act::NetListen, "net.listen"),
    (Act::NetSend, "net.send"),
    (Act::NetCopy, "net.copy"),
    (Act::NetProxy, "net.proxy"),
    (Act::NetShell, "net.shell"),
    (Act::NetExfiltrate, "net.exfiltrate"),
    (Act::ShellHarmless, "shell.harmless"),
    (Act::ShellInteractive, "shell.interactive"),
    (Act::ShellUnknownCode, "shell.unknown-code"),
    (Act::ShellDecode, "shell.decode"),
    (Act::EditorOpen, "editor.open"),
    (Act::DesktopOpen, "desktop.open"),
    (Act::AgentRun, "agent.run"),
    (Act::AgentRead, "agent.read"),
    (Act::ProgramUnknown, "program.unknown"),
    (Act::ProgramDestroy, "program.destroy"),
    (Act::OathRead, "oath.read"),
    (Act::OathChange, "oath.change"),
];

impl Act {
    /// Returns its written name (`vcs.read`).
    pub fn as_str(self) -> &'static str {
        ACTS.iter()
            .find(|(a, _)| *a == self)
            .map(|(_, n)| *n)
            .unwrap_or("?")
    }
}

impl fmt::Display for Act {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
