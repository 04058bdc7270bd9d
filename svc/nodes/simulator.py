"""The node simulator assembled: start the kubelet endpoint, register the nodes (advertising it),
then run the scheduler, the kubelet and the lease heartbeats side by side until cancelled."""

from __future__ import annotations

import asyncio
import dataclasses

from svc.api.brand import Profile
from svc.client.aio import AsyncRestClient
from svc.client.clock import Clock
from svc.controllers.context import InformerFactory
from svc.nodes.kubelet import Kubelet
from svc.nodes.kubelet_server import KubeletServer
from svc.nodes.options import Options
from svc.nodes.pod_network import PodNetwork
from svc.nodes.registration import NodeRegistration
from svc.nodes.scheduling import SchedulingLoop


async def simulate(options: Options, client: AsyncRestClient, profile: Profile, clock: Clock) -> None:
    informers = InformerFactory(client, profile, clock=clock)
    pods = informers.informer("", "v1", "pods")
    reported: dict[str, dict] = {}
    endpoint = KubeletServer(pods, reported)
    port = await endpoint.start(options.shape.address)
    network = PodNetwork(pods)
    if options.pod_network_proxy is not None:
        await network.start(*options.pod_network_proxy)
    shape = dataclasses.replace(options.shape, kubelet_port=port)
    registration = NodeRegistration(client, profile, clock, options.node_names(), shape)
    nodes = {node["metadata"]["name"]: node for node in await registration.register()}
    loops = [registration.keep_renewing()]
    kubelet = Kubelet(
        client, clock, pods, nodes, ready_delay=options.ready_delay, run_time=options.run_time, reported=reported
    )
    loops.append(kubelet.run())
    if options.schedule:
        loops.append(SchedulingLoop(client, clock, pods, informers.informer("", "v1", "nodes")).run())
    informers.start()
    try:
        await informers.wait_for_sync()
        await asyncio.gather(*loops)
    finally:
        await informers.stop()
        await endpoint.stop()
        await network.stop()
